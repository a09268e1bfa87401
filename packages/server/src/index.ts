export { createService, resolveDataDir, type Service, type ServiceOptions } from './service.js';
export { FIRST_PARTY_PLUGINS, loadPlugin, loadPluginSet, parsePluginList, PluginNotPreloaded } from './plugins.js';
export { createMcpServer, connectInProcess } from './mcp-adapter.js';
export { successResult, errorResult, type ToolResult } from './direct-calls.js';
export { buildHttpApp, statusFor, type HttpOptions } from './http.js';
export { main, parseArgs, type MainOptions } from './cli.js';
export { serveHttp, serveStdio, type HttpServeOptions, type HttpServing, type StdioServing } from './serve.js';
