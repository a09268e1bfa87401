import type { AwilixContainer, Resolver } from 'awilix/browser';

/**
 * A plugin's registrations in the kernel's container, undone when its setup fails. awilix lets a
 * name be registered again (the later resolver wins) and has no way to remove one, so:
 * - before a setup, the kernel takes what the container holds (every resolver by name, and the
 *   singletons it has cached);
 * - when the setup fails, each name whose resolver changed gets its earlier resolver back (and the
 *   earlier cached value, or none), and a name that was not registered before is registered as
 *   `false`, which awilix treats as no registration at all (hasRegistration is false, resolve
 *   throws as for an unknown name, and a later register takes the name); the name still shows as a
 *   key of `container.registrations`, with the value false.
 * A failed plugin's service therefore neither stays resolvable nor shadows what an earlier plugin
 * registered under its name.
 */
export interface ContainerSnapshot {
  registrations: Record<string | symbol, Resolver<unknown>>;
  cache: Map<string | symbol, unknown>;
}

/** What the container holds now. */
export function snapshotContainer(container: AwilixContainer): ContainerSnapshot {
  return { registrations: { ...container.registrations }, cache: new Map(container.cache) };
}

/** Put back what the snapshot held for every name registered since; answers those names. */
export function restoreContainer(container: AwilixContainer, before: ContainerSnapshot): (string | symbol)[] {
  const now = container.registrations;
  const changed = Reflect.ownKeys(now).filter((name) => now[name as string] !== before.registrations[name as string]);
  for (const name of changed) {
    const earlier = before.registrations[name as string];
    // `false`: awilix's "nothing registered" (see above); its type asks for a resolver.
    container.register(name as string, (earlier ?? false) as Resolver<unknown>);
    const cached = before.cache.get(name);
    if (cached === undefined) container.cache.delete(name);
    else container.cache.set(name, cached as never);
  }
  return changed;
}

/**
 * The container a plugin's context hands out: the kernel's, except that `register` is refused once
 * the plugin's setup has failed (`refusal` answers the error then), so a setup still running after
 * its timeout cannot add a service after its registrations were undone.
 */
export function pluginContainer(container: AwilixContainer, refusal: () => Error | undefined): AwilixContainer {
  const bound = new Map<PropertyKey, unknown>();
  const view: AwilixContainer = new Proxy(container, {
    get(target, key) {
      if (key === 'register') {
        return (...args: Parameters<AwilixContainer['register']>) => {
          const refused = refusal();
          if (refused) throw refused;
          (target.register as (...a: unknown[]) => unknown)(...args);
          return view;
        };
      }
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(key);
      if (!fn) bound.set(key, (fn = (value as (...a: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
  return view;
}
