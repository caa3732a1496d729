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
