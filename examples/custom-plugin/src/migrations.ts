import type { Migration } from '@memory-service/kernel';

/**
 * The plugin's own schema, applied by the kernel under the plugin's name (recorded in
 * `kernel_migrations`). Every table is prefixed with the tier, `bookmarks_`. Ids are never reused:
 * a later change is a new migration with the next id.
 */
export const migrations: Migration[] = [
  {
    id: 1,
    name: 'bookmarks_items with full-text index',
    up(db) {
      db.exec(`
        CREATE TABLE bookmarks_items (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          layer      TEXT NOT NULL CHECK (layer IN ('user', 'agent')),
          user_id    TEXT NOT NULL,
          url        TEXT NOT NULL,
          title      TEXT NOT NULL,
          note       TEXT,
          tags       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          UNIQUE (layer, user_id, url)
        );
        CREATE INDEX bookmarks_items_scope_recent ON bookmarks_items (layer, user_id, updated_at DESC, id DESC);

        CREATE VIRTUAL TABLE bookmarks_fts USING fts5(
          title, note, url, tags,
          content = 'bookmarks_items', content_rowid = 'id',
          tokenize = 'porter unicode61'
        );
        CREATE TRIGGER bookmarks_items_ai AFTER INSERT ON bookmarks_items BEGIN
          INSERT INTO bookmarks_fts (rowid, title, note, url, tags)
          VALUES (new.id, new.title, new.note, new.url, new.tags);
        END;
        CREATE TRIGGER bookmarks_items_ad AFTER DELETE ON bookmarks_items BEGIN
          INSERT INTO bookmarks_fts (bookmarks_fts, rowid, title, note, url, tags)
          VALUES ('delete', old.id, old.title, old.note, old.url, old.tags);
        END;
        CREATE TRIGGER bookmarks_items_au AFTER UPDATE ON bookmarks_items BEGIN
          INSERT INTO bookmarks_fts (bookmarks_fts, rowid, title, note, url, tags)
          VALUES ('delete', old.id, old.title, old.note, old.url, old.tags);
          INSERT INTO bookmarks_fts (rowid, title, note, url, tags)
          VALUES (new.id, new.title, new.note, new.url, new.tags);
        END;
      `);
    },
  },
  {
    id: 2,
    name: 'bookmarks_items by write time',
    // The nightly run asks which scopes had a bookmark created or updated since a time
    // (BookmarkStore.scopesWrittenSince): this index answers it by reading only those rows.
    up(db) {
      db.exec('CREATE INDEX bookmarks_items_updated ON bookmarks_items (updated_at, layer, user_id)');
    },
  },
];
