/** Server data becomes text, never markup: every cell and label goes through here. */
export function toText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) return value.map(toText).join(", ");
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** An image URL safe to put in <img src>: data:image/* or http(s) only. */
export function safeImageSrc(part: unknown): string | undefined {
  if (!part || typeof part !== "object") return undefined;
  const p = part as Record<string, unknown>;
  const media = typeof p.mediaType === "string" ? p.mediaType : typeof p.media_type === "string" ? p.media_type : undefined;
  if (typeof p.url === "string" && /^(https?:|data:image\/)/i.test(p.url)) return p.url;
  if (typeof p.data === "string" && (p.type === "image" || media?.startsWith("image/"))) {
    return `data:${media ?? "image/png"};base64,${p.data}`;
  }
  return undefined;
}

const TS_KEY = /(^|_)(ts|at)$|[a-z](Ts|At)$/;
/** Numbers above this are milliseconds since the epoch (it is 1973 in ms, 5138 in seconds). */
const MS_FROM = 1e11;

/**
 * A timestamp as a local date and time: a number under a `…Ts` / `…_ts` / `…At` key (ms or s since
 * the epoch, as the server stores them) or a string of format `date-time`; undefined for anything else.
 */
export function dateText(key: string, value: unknown, format?: string): string | undefined {
  let date: Date | undefined;
  if (typeof value === "number" && TS_KEY.test(key) && value > 0) date = new Date(value >= MS_FROM ? value : value * 1000);
  else if (typeof value === "string" && format === "date-time") date = new Date(value);
  if (!date || Number.isNaN(date.getTime())) return undefined;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** A table cell or a field shown read-only: dates as dates, everything else through `toText`. */
export function cellText(key: string, value: unknown, format?: string): string {
  return dateText(key, value, format) ?? toText(value);
}
