// How an exec session reads on the page: what the client ran. An attach session has no command of
// its own (it reaches the container's main process); a port-forward is listed among the exec
// sessions too (it counts with them: cluster/api/portforward/consumer.py).

export function sessionCommand(s, withContainer = false) {
  if (!s.container && s.command[0] === "port-forward") return `kubectl port-forward pod/${s.pod}`;
  const container = withContainer ? ` -c ${s.container}` : "";
  const it = s.tty ? "-it " : "";
  if (!s.command.length) return `kubectl attach ${it}${s.pod}${container}`;
  return `kubectl exec ${it}${s.pod}${container} -- ${s.command.join(" ")}`;
}
