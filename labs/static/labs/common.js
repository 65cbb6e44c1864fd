// Shared helpers of the lab panel, the board and the editor: language, CSRF, JSON requests, DOM.
export const LANG = (document.documentElement.lang || "en").startsWith("zh") ? "zh" : "en";
export const t = (en, zh) => (LANG === "zh" ? zh : en);
export const pick = (text) => (text ? text[LANG] || text.en || "" : "");

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function send(url, body, type = "application/json") {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": type, "X-CSRFToken": csrfToken() },
    body: typeof body === "string" ? body : JSON.stringify(body),
    credentials: "same-origin",
  });
  return response.json();
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "html") node.innerHTML = value; // only for server-rendered, escaped Markdown
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A websocket that reconnects with backoff and hands every JSON message to `onMessage`.
export function live(path, onMessage, onDown = () => {}) {
  let delay = 500;
  const connect = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${path}`);
    socket.onopen = () => { delay = 500; };
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = () => { onDown(); setTimeout(connect, delay); delay = Math.min(delay * 2, 8000); };
  };
  connect();
}
