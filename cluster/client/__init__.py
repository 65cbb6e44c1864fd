"""The control plane's client side, as client-go splits it: informers (tools/cache), Events and
their correlator (tools/record), leader election (tools/leaderelection)."""
