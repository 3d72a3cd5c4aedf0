// PostgreSQL URLs with several hosts, as libpq writes them (`postgresql://u@h1:5432,h2:5433/db`), which
// node-postgres does not take: split into one single-host URL per host. Used for DATABASE_URL (the
// hosts a primary may be on: src/db.ts) and DATABASE_READ_URL (the replicas: src/read-replicas.ts).

const URL_PARTS = /^(postgres(?:ql)?:\/\/)((?:[^@/?#]*@)?)([^/?#]*)(.*)$/;

/**
 * The hosts of a (possibly multi-host) URL, each as a single-host URL with the same user, password,
 * database and parameters, in the URL's order. `target_session_attrs` is libpq's, not node-postgres's,
 * and is taken out (src/db.ts takes only read-write sessions of a multi-host DATABASE_URL anyway).
 */
export function hostUrls(url: string): string[] {
  const match = URL_PARTS.exec(url.trim());
  if (!match) return [url];
  const [, scheme, userinfo, authority, rest] = match;
  const tail = rest.replace(/([?&])target_session_attrs=[^&#]*&?/, "$1").replace(/[?&]$/, "");
  return authority.split(",").map((host, i, hosts) => {
    if (!host && hosts.length > 1) throw new Error(`an empty host in the PostgreSQL URL's "${authority}"`);
    return `${scheme}${userinfo}${host}${tail}`;
  });
}

/**
 * DATABASE_READ_URL → one URL per replica: several URLs separated by commas, or one URL naming several
 * hosts (each host a replica, same user and database), or both.
 */
export function replicaUrls(value: string | undefined): string[] {
  if (!value?.trim()) return [];
  return value.split(/,\s*(?=postgres(?:ql)?:\/\/)/).flatMap((url) => {
    if (!URL_PARTS.test(url.trim())) throw new Error(`DATABASE_READ_URL: "${url}" is not a postgresql:// URL`);
    return hostUrls(url);
  });
}
