/**
 * A setting of the `memory-service` command read from an environment variable that takes one of a
 * few words: unset or empty gives the first; anything else is an error naming the variable, the
 * words it takes and what it got.
 */
export function envChoice<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly [T, ...T[]]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return choices[0];
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  const words = choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(', ')}`;
  throw new Error(`${name} must be ${words}, got "${raw}"`);
}
