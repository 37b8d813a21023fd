/** Every command the extension contributes, in one place (ids match package.json). */
export const Commands = {
  startServer: 'mcpTasks.startServer',
  stopServer: 'mcpTasks.stopServer',
  restartServer: 'mcpTasks.restartServer',
  showLog: 'mcpTasks.showLog',
  openConfig: 'mcpTasks.openConfig',
  addServer: 'mcpTasks.addServer',
  refresh: 'mcpTasks.refresh',
  runTool: 'mcpTasks.runTool',
  /** Run Tool… with a sent call's server, tool and arguments filled in. */
  runAgain: 'mcpTasks.runAgain',
  cancelTask: 'mcpTasks.cancelTask',
  retrieveResult: 'mcpTasks.retrieveResult',
  respond: 'mcpTasks.respond',
  copyTaskId: 'mcpTasks.copyTaskId',
  removeTask: 'mcpTasks.removeTask',
  dismissTask: 'mcpTasks.dismissTask',
  clearFinished: 'mcpTasks.clearFinished',
  /** Lists every remembered consent (sampling "always allow", approved first starts) to revoke. */
  revokeSamplingConsent: 'mcpTasks.revokeSamplingConsent',
  clearStoredInputs: 'mcpTasks.clearStoredInputs',
  focusView: 'mcpTasks.focusView',
  /** Sends the reply written in a reply editor ("Write the reply myself"). */
  sendReply: 'mcpTasks.sendReply',
  /** OAuth sign-in of a server that answered 401 (ui/servers/signIn.ts). */
  signIn: 'mcpTasks.signIn',
  /** Forgets a server's OAuth tokens and client registration. */
  signOut: 'mcpTasks.signOut',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

/** View and container ids (package.json `views` / `viewsContainers`). */
export const Views = {
  container: 'mcpTasks',
  tasks: 'mcpTasks.tasks',
} as const;

/** Context keys set by the extension for `when` clauses. */
export const ContextKeys = {
  hasServers: 'mcpTasks.hasServers',
  hasTasks: 'mcpTasks.hasTasks',
  hasCancellable: 'mcpTasks.hasCancellableTasks',
  hasFinished: 'mcpTasks.hasFinishedTasks',
  hasOrphaned: 'mcpTasks.hasOrphanedTasks',
  hasWaiting: 'mcpTasks.hasTasksWaitingForUser',
  hasRunningServer: 'mcpTasks.hasRunningServer',
  /** Some server waits for a sign-in (Sign In is offered). */
  hasServerNeedingSignIn: 'mcpTasks.hasServerNeedingSignIn',
  /** Some server is reached over HTTP, the only kind that signs in with OAuth (Sign Out is offered). */
  hasHttpServer: 'mcpTasks.hasHttpServer',
  /** A reply editor ("Write the reply myself") is open: Send Reply is offered wherever the focus is. */
  replyOpen: 'mcpTasks.replyOpen',
} as const;
