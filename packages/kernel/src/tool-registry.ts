import { MemoryError } from './errors.js';
import { RESERVED_EXPOSE_TOKENS } from './exposure.js';
import type { Logger } from './logger.js';
import type { PluginDefinition } from './plugin.js';
import { CATALOG_TOOL, DISPATCHER_PREFIX, dispatcherName } from './surface.js';
import { readToolSchemas, type ToolJsonSchemas } from './tool-schemas.js';
import { ToolCallStats } from './call-stats.js';
import { checkToolDefinition, withToolFields, type RegisteredTool, type ToolDefinition } from './tools.js';
import { once } from './util.js';

/**
 * The kernel's tools and tiers: every registered tool by name (in registration order), the tiers in
 * the order they were first named, and each plugin's toolSchemas file reader. Kernel.register adds
 * a plugin's tools through it and takes them out again when its setup fails.
 */
export class ToolRegistry {
  readonly byName = new Map<string, RegisteredTool>();
  /** Tiers in registration order (first-party and third-party). */
  readonly tierOrder: string[] = [];
  /** Per plugin with a toolSchemas file: its schemas, read on first use (undefined when unusable). */
  private readonly schemaFiles = new Map<string, () => Map<string, ToolJsonSchemas> | undefined>();

  constructor(private readonly logger: Logger) {}

  /** Add a plugin's tool (sealed: the kernel is getting ready or closed, which refuses it). */
  add(plugin: PluginDefinition, tool: ToolDefinition, sealed: boolean): void {
    // A tool given as a plain object (not through defineTool) is held to the same checks.
    try {
      checkToolDefinition(tool);
    } catch (err) {
      (err as MemoryError).plugin = plugin.name;
      throw err;
    }
    if (sealed) {
      throw new MemoryError('KERNEL_ERR_AFTER_READY', `Cannot register tool ${tool.name} after ready`, { plugin: plugin.name });
    }
    if (this.byName.has(tool.name)) {
      const owner = this.byName.get(tool.name)!.plugin;
      throw new MemoryError('KERNEL_ERR_TOOL_DUPLICATE', `Tool ${tool.name} is already registered by ${owner}`, {
        plugin: plugin.name,
      });
    }
    if (tool.name === CATALOG_TOOL || tool.name.startsWith(DISPATCHER_PREFIX)) {
      throw new MemoryError(
        'KERNEL_ERR_TOOL_INVALID',
        `Tool name ${tool.name} is reserved for MEMORY_META's catalogue and tier dispatchers (${CATALOG_TOOL}, ${DISPATCHER_PREFIX}<tier>); choose another name`,
        { plugin: plugin.name, field: 'name' },
      );
    }
    const tiers = new Set(tool.tiers?.length ? tool.tiers : [plugin.tier]);
    if (tool.name.startsWith('wiki_')) tiers.add('wiki');
    for (const t of tiers) {
      const problem = this.tierProblem(t);
      if (problem) throw new MemoryError('KERNEL_ERR_TOOL_INVALID', `Tool ${tool.name}: tier "${t}" ${problem}`, { plugin: plugin.name, field: 'tiers' });
    }
    for (const t of tiers) if (!this.tierOrder.includes(t)) this.tierOrder.push(t);
    const schemas = this.schemaFile(plugin);
    this.byName.set(
      tool.name,
      withToolFields(tool, {
        tiers: [...tiers],
        plugin: plugin.name,
        jsonSchemas: schemas && (() => schemas()?.get(tool.name)),
        calls: new ToolCallStats(),
        annotations: {
          readOnlyHint: tool.annotations.readOnlyHint,
          destructiveHint: tool.annotations.destructiveHint ?? !tool.annotations.readOnlyHint,
          idempotentHint: tool.annotations.idempotentHint ?? tool.annotations.readOnlyHint,
          openWorldHint: tool.annotations.openWorldHint ?? false,
        },
      }),
    );
  }

  /**
   * Why a tier name cannot be added, or null: a MEMORY_EXPOSE preset token would never select it,
   * and two tiers with one dispatcher name (`a-b` and `a_b`) would list two tools of one name.
   */
  tierProblem(tier: string): string | null {
    if (this.tierOrder.includes(tier)) return null;
    if (typeof tier !== 'string' || !tier) return 'must be a non-empty string';
    if (RESERVED_EXPOSE_TOKENS.includes(tier)) return `is a MEMORY_EXPOSE preset token (${RESERVED_EXPOSE_TOKENS.join(', ')}); choose another tier name`;
    const clash = this.tierOrder.find((t) => dispatcherName(t) === dispatcherName(tier));
    return clash ? `has the same MEMORY_META dispatcher name (${dispatcherName(tier)}) as tier "${clash}"; choose another tier name` : null;
  }

  /** The reader of a plugin's toolSchemas file, shared by its tools; undefined when it names none. */
  private schemaFile(plugin: PluginDefinition): (() => Map<string, ToolJsonSchemas> | undefined) | undefined {
    const file = plugin.toolSchemas;
    if (!file) return undefined;
    let read = this.schemaFiles.get(plugin.name);
    if (!read) {
      read = once(() => {
        const schemas = readToolSchemas(file, plugin.name);
        if (!schemas) this.logger.warn(`${plugin.name}: tool schemas file ${file.pathname} is missing or not usable; converting the zod schemas`);
        return schemas;
      });
      this.schemaFiles.set(plugin.name, read);
    }
    return read;
  }

  /** Every registered tool, in registration order. */
  list(): RegisteredTool[] {
    return [...this.byName.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }
}
