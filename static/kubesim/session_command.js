// How an exec session reads on the page: what the client ran. A port-forward is listed among the
// exec sessions (it counts with them: cluster/api/portforward/consumer.py).

export function sessionCommand(s, withContainer = false) {
  if (!s.container && s.command[0] === "port-forward") return `kubectl port-forward pod/${s.pod}`;
  const container = withContainer ? ` -c ${s.container}` : "";
  return `kubectl exec ${s.tty ? "-it " : ""}${s.pod}${container} -- ${s.command.join(" ")}`;
}
