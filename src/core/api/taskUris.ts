/** Task URIs of the extension API (`mcp-task://<server>/sent|received/<id>`); read back by apiSchemas.ts. */
export const URI_SCHEME = 'mcp-task';

/** A task URI; the server part is URI-encoded. */
export function taskUri(server: string, direction: 'sent' | 'received', id: string): string {
  return `${URI_SCHEME}://${encodeURIComponent(server)}/${direction}/${encodeURIComponent(id)}`;
}
