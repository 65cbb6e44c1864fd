// An exec session in the web console: the pods/exec websocket (remote-command protocol v5) in line
// mode. The server's shell echoes and edits what it receives, so a line is sent whole with a CR,
// Ctrl+C as ETX and Ctrl+D as EOT, and everything the server writes is shown as a terminal would.

const PROTOCOL = "v5.channel.k8s.io";
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255; // v5: the client is done with a stream

export class ExecSession {
  // onText(text) shows terminal output; onEnd(status) runs once, with the error channel's Status
  // (or null when the connection ended without one).
  constructor(path, { tty, onText, onEnd }) {
    this.tty = tty;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}${path}`, [PROTOCOL]);
    this.socket.binaryType = "arraybuffer";
    this.decoder = new TextDecoder();
    this.encoder = new TextEncoder();
    this.status = null;
    this.ended = false;
    this.onText = onText;
    this.onEnd = onEnd;
    this.socket.addEventListener("message", (event) => this.receive(new Uint8Array(event.data)));
    this.socket.addEventListener("close", () => this.finish());
    this.socket.addEventListener("error", () => this.finish());
  }

  receive(frame) {
    if (!frame.length) return;
    const channel = frame[0];
    const text = this.decoder.decode(frame.subarray(1));
    if (channel === STDOUT || channel === STDERR) this.onText(text);
    else if (channel === ERROR) {
      try {
        this.status = JSON.parse(text);
      } catch {
        this.status = { status: "Failure", message: text };
      }
    }
  }

  send(text) {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    const bytes = this.encoder.encode(text);
    const frame = new Uint8Array(bytes.length + 1);
    frame[0] = STDIN;
    frame.set(bytes, 1);
    this.socket.send(frame);
  }

  // On a terminal the server's line discipline echoes and edits; without one, input is a stream.
  sendLine(line) { this.send(this.tty ? `${line}\r` : `${line}\n`); }
  interrupt() { this.send("\u0003"); }
  endOfInput() {
    if (this.tty) this.send("\u0004");
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.send(new Uint8Array([CLOSE, STDIN]));
  }
  close() { this.socket.close(); }

  finish() {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this.status);
  }
}

// kubectl's last words for a session's Status: nothing on success, the exit code otherwise.
export function statusText(status) {
  if (!status || status.status === "Success") return "";
  if (status.reason === "NonZeroExitCode") {
    const cause = ((status.details || {}).causes || []).find((c) => c.reason === "ExitCode");
    return `command terminated with exit code ${cause ? cause.message : "1"}`;
  }
  return `error: ${status.message || "unknown error"}`;
}
