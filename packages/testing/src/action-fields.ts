import { toolError, type TestServer } from './index.js';

/** A call giving `field`, which its action does not take: refused naming it and `takenBy` (e.g. "action decide", "actions save, get"). */
export type ActionFieldCase = [tool: string, args: Record<string, unknown>, field: string, takenBy: string];

/**
 * Make each call and say what did not hold of the kernel's refusal of a field the call's action does
 * not take (actionFields): a validation error naming the field, accepting "omit it with action <a>",
 * and a message naming the actions that take it and what this action takes. An action left out is
 * the schema's default, `defaultAction`. Answers one line per case that did not hold, so a test
 * expects `[]` and a failure names every tool at once.
 */
export async function actionFieldProblems(server: TestServer, cases: readonly ActionFieldCase[], defaultAction = 'run'): Promise<string[]> {
  const problems: string[] = [];
  for (const [tool, args, field, takenBy] of cases) {
    const action = (args.action as string | undefined) ?? defaultAction;
    const where = `${tool} ${JSON.stringify(args)}`;
    let err;
    try {
      err = await toolError(server.call(tool, args));
    } catch (e) {
      problems.push(`${where}: ${(e as Error).message}`);
      continue;
    }
    const message = `"${field}" is not used by action ${action}, so it would be dropped; it is taken by ${takenBy}. Action ${action} takes `;
    if (err.code !== 'KERNEL_ERR_VALIDATION' || err.field !== field || err.accepted !== `omit it with action ${action}` || !err.message?.includes(message)) {
      problems.push(`${where}: ${JSON.stringify(err)}`);
    }
  }
  return problems;
}
