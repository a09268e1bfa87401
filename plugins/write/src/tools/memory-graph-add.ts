import { defineTool, invalid, isBlank, z, type Hooks, type Logger } from '@memory-service/kernel';
import { CAUSAL_RELATIONS, NODE_PREFIX, notFound, parseId, type GraphNode, type Scope, type Stores } from '@memory-service/stores';
import { ADDITIVE, checkTags, edgeOut, edgeSchema, layerInput, nodeOut, nodeSchema, scopeOf, tagsInput, userIdInput } from '../common.js';

/** The relations an edge made with relates_to takes (the spec's list). */
export const RELATES_TO_RELATIONS = ['knows', 'works_with', 'family_of', 'friend_of', 'met', 'mentions'] as const;
/** Node types that fire the kernel's graph_domain hook when a node of theirs is added. */
export const DOMAIN_NODE_TYPES = ['error', 'decision', 'personality', 'emotion'] as const;
/** The node types of action=causal: an action node and an outcome node, each found again by its content. */
export const CAUSAL_NODE_TYPES = { action: 'action', outcome: 'outcome' } as const;

const ACTIONS = ['add', 'causal'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = {
  add: ['content', 'node_type', 'tags', 'confidence', 'relates_to', 'relation', 'strength'],
  causal: ['content', 'tags', 'confidence', 'relation', 'outcome', 'strength'],
} as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

export function memoryGraphAddTool(stores: Stores, hooks: Readonly<Hooks>, logger: Logger) {
  return defineTool({
    name: 'memory_graph_add',
    title: 'Add to the knowledge graph',
    description:
      'Add to the knowledge graph of the layer and user_id. action add (default): a node with content, node_type (free text, e.g. ' +
      'person, organization, project, decision, error) and tags; a person or organization node whose content is already there (same ' +
      'words, case and punctuation aside) is returned as it is (existed true) instead of added twice. With relates_to (a node_id) and ' +
      `relation (${RELATES_TO_RELATIONS.join(', ')}) it also links the node to that one (node -> relates_to). Nodes of type ` +
      `${DOMAIN_NODE_TYPES.join(', ')} fire the graph_domain hook. action causal: content is an action, outcome what followed, relation ` +
      `(${CAUSAL_RELATIONS.join(', ')}; default led_to) and strength (0..1, default 1) the causal link; the action and outcome nodes are ` +
      'found again by their content, so recording the same pair again returns the same nodes and updates the strength. Returns the ' +
      'node(s), whether each existed, and the edge (null when none). Errors name the field: an unknown relation, an unknown or ' +
      'malformed relates_to, a missing node_type or outcome, a field the action does not take.',
    input: () => z.object({
      action: z.enum(ACTIONS).default('add').describe('add (a node, optionally linked) or causal (action -> outcome)'),
      content: z.string().max(100_000).describe('add: the node content; causal: the action'),
      node_type: z.string().max(100).optional().describe('add: the node type (person and organization are deduplicated)'),
      tags: tagsInput.describe('Tags of new nodes, plain or dimension:value'),
      confidence: z.number().min(0).max(1).optional().describe('Confidence of new nodes, 0..1 (default 0.5)'),
      relates_to: z.string().min(1).max(100).optional().describe('add: node_id (node_<n>) of a node of this layer and user_id to link to'),
      relation: z.string().max(50).optional().describe(`add with relates_to: ${RELATES_TO_RELATIONS.join(', ')}; causal: ${CAUSAL_RELATIONS.join(', ')}`),
      outcome: z.string().max(100_000).optional().describe('causal: what the action led to'),
      strength: z.number().min(0).max(1).optional().describe('Edge strength (causal weight), 0..1, default 1'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      node: nodeSchema.describe('add: the node; causal: the action node'),
      existed: z.boolean().describe('The node was already there and was returned as it is'),
      outcome_node: nodeSchema.optional().describe('causal: the outcome node'),
      outcome_existed: z.boolean().optional(),
      edge: edgeSchema.nullable(),
      domain_hook: z.boolean().describe('Whether the graph_domain hook was fired for the node'),
    }),
    annotations: ADDITIVE,
    actionFields: FIELDS,
    handler: async (args) => {
      const scope = scopeOf(args);
      const content = args.content.trim();
      if (isBlank(content)) throw invalid('content', 'must not be empty or only white space', args.action === 'add' ? 'the node content' : 'the action');
      const tags = checkTags(args.tags);
      if (args.action === 'causal') {
        return causal(stores, scope, { ...args, content, tags });
      }
      const nodeType = args.node_type?.trim() ?? '';
      if (isBlank(nodeType)) throw invalid('node_type', 'is required for action add', 'a node type such as person, organization, project, decision');
      if (args.relation !== undefined && args.relates_to === undefined) throw invalid('relates_to', 'is required with relation (the node_id to link to)', 'node_<number>');
      if (args.strength !== undefined && args.relates_to === undefined) throw invalid('strength', 'applies only to an edge (relates_to, or action causal)', ['relates_to', 'action causal']);
      let target: GraphNode | null = null;
      if (args.relates_to !== undefined) {
        const id = args.relates_to.trim();
        if (parseId(NODE_PREFIX, id) === null) throw invalid('relates_to', `must be a node id of the form node_<number>; got ${JSON.stringify(id.slice(0, 100))}`, 'node_<number>');
        target = stores.graph.getNode(scope, id);
        if (!target) throw notFound(`graph node of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, id, 'relates_to');
        if (args.relation === undefined) throw invalid('relation', 'is required with relates_to', RELATES_TO_RELATIONS);
        if (!(RELATES_TO_RELATIONS as readonly string[]).includes(args.relation.trim())) {
          throw invalid('relation', `must be one of ${RELATES_TO_RELATIONS.join(', ')} with relates_to; got ${JSON.stringify(args.relation)}`, RELATES_TO_RELATIONS);
        }
      }
      const node = stores.graph.addNode(scope, { content, node_type: nodeType, tags, confidence: args.confidence });
      let edge = null;
      if (target) {
        if (target.node_id === node.node_id) throw invalid('relates_to', 'names the node being added: a node is not linked to itself', 'another node_id');
        edge = edgeOut(stores.graph.addEdge(scope, { from: node.node_id, to: target.node_id, relation: args.relation!.trim(), strength: args.strength }));
      }
      const domain = !node.existed && (DOMAIN_NODE_TYPES as readonly string[]).includes(node.node_type);
      if (domain) {
        try {
          await hooks.graph_domain.promise({ ...scope, node_id: node.node_id, node_type: node.node_type, content: node.content });
        } catch (err) {
          logger.error(`hook graph_domain failed: ${(err as Error).message}`);
        }
      }
      return { action: 'add' as const, node: nodeOut(node), existed: node.existed, edge, domain_hook: domain };
    },
  });
}

function causal(
  stores: Stores,
  scope: Scope,
  args: { content: string; tags: string[]; confidence?: number; relation?: string; outcome?: string; strength?: number },
) {
  const outcome = args.outcome?.trim() ?? '';
  if (isBlank(outcome)) throw invalid('outcome', 'is required for action causal', 'what the action led to');
  const relation = args.relation?.trim() ?? 'led_to';
  if (!(CAUSAL_RELATIONS as readonly string[]).includes(relation)) {
    throw invalid('relation', `must be one of ${CAUSAL_RELATIONS.join(', ')} for action causal; got ${JSON.stringify(args.relation)}`, CAUSAL_RELATIONS);
  }
  const common = { tags: args.tags, confidence: args.confidence, dedupe: true };
  const action = stores.graph.addNode(scope, { content: args.content, node_type: CAUSAL_NODE_TYPES.action, ...common });
  const result = stores.graph.addNode(scope, { content: outcome, node_type: CAUSAL_NODE_TYPES.outcome, ...common });
  const edge = stores.graph.addEdge(scope, { from: action.node_id, to: result.node_id, relation, strength: args.strength ?? 1 });
  return {
    action: 'causal' as const,
    node: nodeOut(action),
    existed: action.existed,
    outcome_node: nodeOut(result),
    outcome_existed: result.existed,
    edge: edgeOut(edge),
    domain_hook: false,
  };
}
