import { defineTool, z } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';
import { PROJECT_ACTIONS, PROJECT_FIELDS, type ProjectService } from '../services/projects.js';

export function projectTool(projects: ProjectService) {
  return defineTool({
    name: 'project',
    title: 'Project context',
    description:
      'Keep context about a project (projects are global, keyed by name). action init: create it (a project_spec wiki page ' +
      'and an identity row; details = description, path = its directory, an absolute path; on a project that exists it changes nothing and warns; an archived project it reopens, status active or the one given). update (refused on an archived project): add details, change status or path, and ' +
      'refresh the code map (top-level symbols of the files under path, bounded; when the stored path no longer exists the ' +
      'map is kept and the answer has a warning). mapping: register an artifact (details = ' +
      'file path, with role and status). decision: record a decision with its rationale (details) and outcome; logs a ' +
      'project_decision event. recall: status, decision history (the latest 200, with decision_count), artifacts (the 200 mapped last, with artifact_count), code-symbol count. audit: gap analysis over ' +
      'Architecture, Security and Testing with a core-memory conflict scan and completeness verdicts. archive: move the spec ' +
      "pages (the caller's and every other user's) to the Shadow Bin and mark the project archived (init reopens it).",
    input: () => z.object({
      action: z.enum(PROJECT_ACTIONS),
      name: z.string().min(1).max(200).describe('Project name (global key)'),
      details: z.string().max(20_000).optional().describe('Description (init/update), file path (mapping) or decision with rationale (decision)'),
      outcome: z.string().max(4000).optional().describe('Outcome of a decision'),
      role: z.string().max(200).optional().describe('Artifact role (mapping)'),
      status: z.string().max(100).optional().describe('Project status (init/update) or artifact status (mapping)'),
      path: z.string().max(4096).optional().describe('Absolute path of the project directory, for the code map (init/update); a relative path is refused'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: z.looseObject({ status: z.string(), project: z.string() }),
    actionFields: PROJECT_FIELDS,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    // Each action writes in one transaction of its own (services/projects.ts), after the code map's
    // directory scan: in the call's transaction, the scan, recall and audit held the write lock. It
    // waits for another process's lock without blocking the server, within the call's budget (call).
    transaction: false,
    handler: (args, call) => projects.run(args, call),
  });
}
