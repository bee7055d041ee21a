/**
 * The path and query of a request target. Split by hand rather than through `new URL`, which costs more than a
 * microsecond a request on the hot path; the query is parsed only when a step reads it.
 */
export interface RequestTarget {
  readonly pathname: string;
  /** The query as sent, without its `?`: its escapes are checked before its decoded parameters are read. */
  readonly rawQuery: string;
  readonly searchParams: URLSearchParams;
}

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '/';
  // Absolute-form targets (`GET http://host/path`) are rare enough to take the slow, general path.
  if (!target.startsWith('/')) {
    const url = new URL(target, 'http://mock.invalid');
    return { pathname: url.pathname, rawQuery: url.search.slice(1), searchParams: url.searchParams };
  }
  const queryStart = target.indexOf('?');
  const pathname = queryStart < 0 ? target : target.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : target.slice(queryStart + 1);
  let searchParams: URLSearchParams | undefined;
  return {
    pathname,
    rawQuery,
    get searchParams() {
      searchParams ??= new URLSearchParams(rawQuery);
      return searchParams;
    },
  };
}
