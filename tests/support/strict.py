"""The taints lab's classic mistake, for the strict-input tests of every path (the API, the page,
the console): `tolerations` put under the container, and the words kubectl's strict decoding
refuses it with."""

TOLERATIONS_UNDER_THE_CONTAINER = """\
apiVersion: v1
kind: Pod
metadata:
  name: gpu-job
spec:
  containers:
  - name: main
    image: nginx
    tolerations:
    - key: gpu
      operator: Exists
"""
KUBECTL_TEXT = (
    'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
    'unknown field "spec.containers[0].tolerations"'
)
