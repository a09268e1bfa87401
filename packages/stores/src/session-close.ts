import { isBlank } from '@memory-service/kernel';
import type { Episode, EpisodeStore } from './episodes.js';
import { validationError } from './errors.js';
import { scoreImportance } from './scorers/index.js';
import type { Session, SessionEndInput, SessionStore } from './sessions.js';
import type { Scope } from './types.js';

/** The tag of the L3 episode a closed session's summary is saved as. */
export const SESSION_SUMMARY_TAG = 'session_summary';

export interface SessionCloseOptions {
  /** Refuse (an error naming `session`) when no session of the scope is open; otherwise one is opened and closed. */
  requireOpen?: boolean;
  /** meta.origin of the summary episode (who closed the session). */
  origin?: string;
}

export interface SessionClosed {
  session: Session;
  /** The summary saved as an L3 episode tagged session_summary; null when the summary was empty. */
  episode: Episode | null;
}

/**
 * Closing a working session the way both memory_session_end and memory_hook session_ended do: in
 * one transaction the open session is scored (quality 0..80, stored on the row) and closed, then
 * its summary, when there is one, is saved as an L3 episode tagged session_summary. The session
 * is scored before the episode is written: that episode is not an entry linked to it. Firing the
 * consolidation hooks after the commit is the caller's (the stores hold no hooks).
 */
export class SessionCloser {
  constructor(
    private readonly sessions: SessionStore,
    private readonly episodes: EpisodeStore,
    private readonly tx: <T>(fn: () => T) => T,
  ) {}

  close(scope: Scope, input: SessionEndInput, opts: SessionCloseOptions = {}): SessionClosed {
    return this.tx(() => {
      if (opts.requireOpen && !this.sessions.current(scope)) {
        throw validationError(
          'session',
          `no session is open for layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}: open one with memory_session_start first`,
          'an open session (memory_session_start)',
        );
      }
      const session = this.sessions.end(scope, input);
      const summary = (session.summary ?? '').trim();
      const episode = isBlank(summary)
        ? null
        : this.episodes.add(scope, {
            summary,
            importance: Math.max(0.5, scoreImportance(summary)),
            emotional_weight: 0,
            tags: [SESSION_SUMMARY_TAG],
            meta: { origin: opts.origin ?? 'session_ended', session_id: session.id },
          });
      return { session, episode };
    });
  }
}
