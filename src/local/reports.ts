/**
 * The budget of a local check's Markdown report (`check`, each iteration of `loop`): a local file
 * has no size limit worth cutting for; this only bounds a pathological report.
 */
export const LOCAL_MARKDOWN_BUDGET = 5_000_000
