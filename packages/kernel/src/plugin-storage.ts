import { MemoryError } from './errors.js';
import { tierScope } from './schema-scope.js';
import type { Migration, SchemaScope, Storage } from './storage.js';

/** Both scopes at once: what `narrower` owns of what `base` owns. */
function intersect(base: SchemaScope, narrower: SchemaScope): SchemaScope {
  return { owns: (name) => base.owns(name) && narrower.owns(name), rule: `${base.rule} and ${narrower.rule}` };
}

/**
 * The storage a plugin's context hands out (`ctx.storage`): the kernel's Storage, except that
 * `migrate` runs under the plugin's own name and scope, as the migrations it declares do. A plugin
 * calling `ctx.storage.migrate(...)` itself skipped the scope check; under another owner's name it
 * is refused (KERNEL_ERR_MIGRATION_SCOPE naming the plugin), since its ids would count as that
 * owner's. A scope it passes only narrows its own. Everything else is the Storage itself, its
 * methods bound to it (each bound once). The container's `storage` stays the kernel's own, for
 * first-party wiring: the stores run their migrations through it (`useStores`).
 */
export function pluginStorage(storage: Storage, plugin: { name: string; tier: string }): Storage {
  const scope = tierScope(plugin.tier);
  const migrate = (owner: string, migrations: readonly Migration[], narrower?: SchemaScope): number[] => {
    if (owner !== plugin.name) {
      throw new MemoryError(
        'KERNEL_ERR_MIGRATION_SCOPE',
        `Plugin ${plugin.name} ran migrations under the owner name ${JSON.stringify(owner)}: a plugin's migrations run under its own name (${plugin.name}) and may touch only tables, indexes, triggers and views ${scope.rule}; declare them in the plugin's \`migrations\``,
        { plugin: plugin.name, field: 'owner', accepted: plugin.name },
      );
    }
    return storage.migrate(owner, migrations, narrower ? intersect(scope, narrower) : scope);
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(storage, {
    get(target, key) {
      if (key === 'migrate') return migrate;
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(key);
      if (!fn) bound.set(key, (fn = (value as (...a: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
}
