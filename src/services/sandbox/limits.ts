// Account limits that bound what the console asks for at once (e2b-sdk reference §7).

/** E2B Pro runs at most 100 sandboxes at once (Hobby 20): asking for more only produces 429s and cost. */
export const MAX_SANDBOX_CONCURRENCY = 100;
