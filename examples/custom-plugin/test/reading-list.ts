import { definePlugin, defineTool, layerSchema, userIdSchema, z } from '@memory-service/kernel';
import { useStores } from '@memory-service/stores';

export default definePlugin({
  name: 'reading-list-plugin',
  version: '1.0.0',
  tier: 'reading',
  kernel: '^1.0.0',
  setup(ctx) {
    // The memory's stores (facts, episodes, wiki, graph, timeline, search, ...): one instance per
    // server, shared by every plugin; the first plugin to ask applies their migrations.
    const stores = useStores(ctx);
    ctx.tools.register(
      defineTool({
        name: 'reading_finished',
        title: 'Finished a book',
        description: 'Record that the user finished a book, as a core fact that dream and wake_up find. Returns the fact id.',
        input: z.object({ title: z.string().min(1).max(200), layer: layerSchema.default('user'), user_id: userIdSchema }),
        output: z.object({ entry_id: z.string() }),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
        // Synchronous: the write is part of the call's transaction, undone if the handler throws.
        handler: ({ title, layer, user_id }) => {
          const fact = stores.facts.upsert({ layer, user_id }, { key: `book:${title}`, value: `finished reading ${title}`, importance: 0.6 });
          return { entry_id: fact.entry_id };
        },
      }),
    );
    // Reads too: the newest of this scope's facts, for example, on session_started.
    ctx.onEvent('session_started', (event) => ({
      books: stores.facts.list({ layer: event.layer, user_id: event.user_id }, { orderBy: 'updated', limit: 50 }).filter((f) => f.key.startsWith('book:')).length,
    }));
  },
});
