import { definePlugin, type Kernel } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';
import { Dreamer } from './services/dreamer.js';
import { Forgetter } from './services/forgetter.js';
import { LifecycleHandlers } from './services/lifecycle.js';
import { ProjectService } from './services/projects.js';
import { Thinker } from './services/thinker.js';
import { WakeUp } from './services/wake-up.js';
import { dreamTool } from './tools/dream.js';
import { evolveTool } from './tools/evolve.js';
import { forgetTool } from './tools/forget.js';
import { memoryHookTool } from './tools/memory-hook.js';
import { projectTool } from './tools/project.js';
import { thinkTool } from './tools/think.js';
import { wakeUpTool } from './tools/wake-up.js';

export { Thinker, Dreamer, Forgetter, LifecycleHandlers, ProjectService, WakeUp };
export { collapseRedundant } from '@memory-service/stores';
export { carriesValue } from './services/forgetter.js';
export { baseKey, freeFactKey, LONG_THOUGHT_TYPE } from './services/thinker.js';

/** The default tool surface: think, dream, forget, evolve, project, memory_hook, wake_up. */
export default definePlugin({
  name: '@memory-service/plugin-primitives',
  version: '0.1.0',
  tier: 'primitives',
  kernel: '^1.0.0',
  description: 'The seven primitives: think, dream, forget, evolve, project, memory_hook, wake_up.',
  // Written by the build (scripts/tool-schemas.mjs) beside dist/bundle.js and dist/index.js.
  toolSchemas: new URL('./tool-schemas.json', import.meta.url),
  setup(ctx) {
    const stores = useStores(ctx);
    const kernel = ctx.container.resolve<Kernel>('kernel');
    const thinker = new Thinker(stores, ctx.clock, ctx.hooks, ctx.logger, stores.config.maxTextChars);
    const dreamer = new Dreamer(stores, stores.config.tokenBudget);
    // The kernel's logger: the session_inject check names the plugin whose tap failed first, as the
    // kernel's own "<plugin> failed on hook" lines do (ctx.logger would begin it with this plugin's name).
    const lifecycle = new LifecycleHandlers(stores, ctx.hooks, ctx.config, kernel.logger);

    ctx.tools.register(thinkTool(thinker));
    ctx.tools.register(dreamTool(dreamer, ctx.config));
    ctx.tools.register(forgetTool(new Forgetter(stores, ctx.clock)));
    ctx.tools.register(evolveTool(stores, ctx.hooks, ctx.logger));
    ctx.tools.register(projectTool(new ProjectService(stores, ctx.hooks, ctx.logger)));
    ctx.tools.register(memoryHookTool(kernel));
    ctx.tools.register(wakeUpTool(new WakeUp(stores)));

    ctx.onEvent('session_started', (e) => lifecycle.sessionStarted(e));
    ctx.onEvent('session_ended', (e) => lifecycle.sessionEnded(e));
    ctx.onEvent('new_message', (e) => lifecycle.autoSave(e));
    ctx.onEvent('auto_save_candidate', (e) => lifecycle.autoSave(e));
    ctx.onEvent('post_context_compression', (e) => lifecycle.postContextCompression(e));
    ctx.onEvent('context_threshold', (e) => lifecycle.contextThreshold(e));
    ctx.onEvent('memory_pressure', (e) => lifecycle.memoryPressure(e));
  },
});
