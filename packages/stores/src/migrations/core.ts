import type { Migration } from '../types.js';

/**
 * The memory domain's tables. Every scoped table carries (layer, user_id) and an index that
 * starts with them, so each per-scope query is an index range, never a table scan.
 */
export const coreSchema: Migration = {
  id: 1,
  name: 'stores_core_tables',
  up(db) {
    db.exec(`
CREATE TABLE l1_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  text TEXT NOT NULL, kind TEXT, ref TEXT, created TEXT NOT NULL
);
CREATE INDEX l1_items_scope ON l1_items(layer, user_id, id);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open','closed')),
  started TEXT NOT NULL, ended TEXT,
  summary TEXT, topics TEXT NOT NULL DEFAULT '[]', state_deltas TEXT NOT NULL DEFAULT '{}',
  quality INTEGER, quality_detail TEXT
);
CREATE INDEX sessions_scope ON sessions(layer, user_id, status, id);

CREATE TABLE scratchpad (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  key TEXT NOT NULL, content TEXT NOT NULL,
  created TEXT NOT NULL, updated TEXT NOT NULL, seq INTEGER NOT NULL,
  UNIQUE (layer, user_id, key)
);
CREATE INDEX scratchpad_seq ON scratchpad(layer, user_id, seq);

CREATE TABLE episodes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  summary TEXT NOT NULL, emotional_weight REAL NOT NULL DEFAULT 0, importance REAL NOT NULL DEFAULT 0.5,
  tags TEXT NOT NULL DEFAULT '[]', meta TEXT NOT NULL DEFAULT '{}',
  created TEXT NOT NULL, access_count INTEGER NOT NULL DEFAULT 0, last_access TEXT
);
CREATE INDEX episodes_scope ON episodes(layer, user_id, id);
CREATE INDEX episodes_created ON episodes(layer, user_id, created);

CREATE TABLE episode_tags (
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  dimension TEXT NOT NULL, tag TEXT NOT NULL,
  PRIMARY KEY (episode_id, tag)
);
CREATE INDEX episode_tags_scope ON episode_tags(layer, user_id, tag, episode_id);

CREATE TABLE facts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL,
  importance REAL NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('user_explicit','staging_promotion','episode_promotion','legacy','manual')),
  metadata TEXT NOT NULL DEFAULT '{}',
  created TEXT NOT NULL, updated TEXT NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0, last_access TEXT,
  UNIQUE (layer, user_id, key)
);
CREATE INDEX facts_importance ON facts(layer, user_id, importance DESC, id);
CREATE INDEX facts_created ON facts(layer, user_id, created);
CREATE INDEX facts_updated ON facts(layer, user_id, updated);

CREATE TABLE wiki_pages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  title TEXT NOT NULL, wiki_type TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '[]',
  path TEXT NOT NULL UNIQUE, content TEXT NOT NULL,
  created TEXT NOT NULL, updated TEXT NOT NULL, size INTEGER NOT NULL,
  UNIQUE (layer, user_id, title)
);
CREATE INDEX wiki_pages_type ON wiki_pages(layer, user_id, wiki_type, updated);
CREATE INDEX wiki_pages_updated ON wiki_pages(layer, user_id, updated);

CREATE TABLE wiki_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  from_title TEXT NOT NULL, to_title TEXT NOT NULL,
  relation TEXT NOT NULL CHECK (relation IN ('review_of','revises','follows')),
  created TEXT NOT NULL,
  UNIQUE (layer, user_id, from_title, to_title, relation)
);
CREATE INDEX wiki_links_to ON wiki_links(layer, user_id, to_title);

CREATE TABLE graph_nodes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  content TEXT NOT NULL, norm_content TEXT NOT NULL, node_type TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]', confidence REAL NOT NULL DEFAULT 0.5,
  created TEXT NOT NULL, access_count INTEGER NOT NULL DEFAULT 0, last_access TEXT
);
CREATE INDEX graph_nodes_type ON graph_nodes(layer, user_id, node_type, norm_content);
CREATE INDEX graph_nodes_confidence ON graph_nodes(layer, user_id, confidence DESC, id);
CREATE INDEX graph_nodes_created ON graph_nodes(layer, user_id, created);

CREATE TABLE graph_node_tags (
  node_id INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  layer TEXT NOT NULL, user_id TEXT NOT NULL, tag TEXT NOT NULL,
  PRIMARY KEY (node_id, tag)
);
CREATE INDEX graph_node_tags_scope ON graph_node_tags(layer, user_id, tag, node_id);

CREATE TABLE graph_edges (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  from_id INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  to_id INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  relation TEXT NOT NULL, strength REAL NOT NULL DEFAULT 1.0, created TEXT NOT NULL,
  UNIQUE (from_id, to_id, relation)
);
CREATE INDEX graph_edges_to ON graph_edges(to_id);
CREATE INDEX graph_edges_scope ON graph_edges(layer, user_id, created);

CREATE TABLE timeline_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  type TEXT NOT NULL, summary TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}', created TEXT NOT NULL
);
CREATE INDEX timeline_scope ON timeline_events(layer, user_id, id);
CREATE INDEX timeline_created ON timeline_events(layer, user_id, created);

CREATE TABLE recall_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  query TEXT NOT NULL, intent TEXT NOT NULL, result_count INTEGER NOT NULL, ms REAL NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX recall_events_scope ON recall_events(layer, user_id, id);

CREATE TABLE shadow_bin (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  layer TEXT NOT NULL, user_id TEXT NOT NULL,
  origin_store TEXT NOT NULL, origin_id TEXT NOT NULL,
  content TEXT NOT NULL, reason TEXT NOT NULL, archived TEXT NOT NULL, restored TEXT
);
CREATE INDEX shadow_bin_scope ON shadow_bin(layer, user_id, id);
CREATE INDEX shadow_bin_origin ON shadow_bin(layer, user_id, origin_store, origin_id);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL, target_type TEXT NOT NULL, target_id TEXT NOT NULL,
  layer TEXT, user_id TEXT, ts TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_target ON audit_log(target_id, id);
CREATE INDEX audit_log_scope ON audit_log(layer, user_id, ts);

CREATE TABLE importance_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  entry_id TEXT NOT NULL, old REAL NOT NULL, new REAL NOT NULL, reason TEXT NOT NULL, ts TEXT NOT NULL
);
CREATE INDEX importance_audit_entry ON importance_audit(entry_id, id);

CREATE TABLE projects (
  name TEXT PRIMARY KEY,
  status TEXT NOT NULL, path TEXT, description TEXT NOT NULL DEFAULT '',
  created TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE project_decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project TEXT NOT NULL REFERENCES projects(name) ON DELETE CASCADE,
  decision TEXT NOT NULL, rationale TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '', ts TEXT NOT NULL
);
CREATE INDEX project_decisions_project ON project_decisions(project, id);
CREATE TABLE project_artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project TEXT NOT NULL REFERENCES projects(name) ON DELETE CASCADE,
  path TEXT NOT NULL, role TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT '', ts TEXT NOT NULL,
  UNIQUE (project, path)
);
CREATE TABLE project_symbols (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project TEXT NOT NULL REFERENCES projects(name) ON DELETE CASCADE,
  file TEXT NOT NULL, symbol TEXT NOT NULL, kind TEXT NOT NULL, line INTEGER NOT NULL
);
CREATE INDEX project_symbols_project ON project_symbols(project, file);
`);
  },
};
