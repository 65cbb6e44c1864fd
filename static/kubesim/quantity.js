// Kubernetes quantities, enough to draw capacity bars: a pod's requests come summed by the server
// (kube-scheduler's arithmetic), a node's allocatable is parsed here.

const BINARY = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export function parseQuantity(value) {
  if (value === undefined || value === null || value === "") return 0;
  if (typeof value === "number") return value;
  const match = String(value).trim().match(/^([+-]?[0-9.]+)(e[+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/i);
  if (!match) return 0;
  const number = parseFloat(match[1]);
  const suffix = match[2] || "";
  if (suffix in BINARY) return number * BINARY[suffix];
  if (suffix in DECIMAL) return number * DECIMAL[suffix];
  if (/^e/i.test(suffix)) return number * 10 ** parseInt(suffix.slice(1), 10);
  return number;
}

export function formatCpu(cores) {
  const milli = Math.round(cores * 1000); // sums of 0.1 drift below 1; millicores are exact
  return milli > 0 && milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

export function formatBytes(bytes) {
  const units = ["", "Ki", "Mi", "Gi", "Ti"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)}${units[unit]}`;
}

export function formatImageSize(bytes) {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

// What kubectl's STATUS column says, which is also what the colour means.
// The colour of kubectl's STATUS word: a failure red (Init:Error, OOMKilled, ExitCode:3, …), the
// init containers' progress (Init:0/2, PodInitializing) blue like ContainerCreating, a container
// that ended well (Completed) grey like Succeeded, a running pod that is not ready amber.
export function phaseClass(state) {
  if (["Pending", "Running", "Succeeded", "Failed", "ContainerCreating", "Terminating"].includes(state)) return state;
  if (/Err|BackOff|Crash|Invalid|OOMKilled|ExitCode|Signal|ContainerCannotRun|DeadlineExceeded|Evicted/.test(state)) return "Failed";
  if (/^Init:\d+\/\d+$/.test(state) || state === "PodInitializing") return "ContainerCreating";
  if (state === "Completed") return "Succeeded";
  if (state === "NotReady") return "Pending";
  return "Unknown";
}
