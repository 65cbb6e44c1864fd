"""placeholder"""


def record_endpoints(cluster, service, subsets, trace_id):
    return None
