/** What a module the browser build leaves out answers when called: that it needs Node, and where it runs instead. */
export function notInBrowser(what: string): never {
  throw new Error(`${what} needs Node: the mock in a browser keeps its state in memory, and delivers webhooks to the handlers registered with onWebhook`);
}
