#!/usr/bin/env bash
# The live substrate and its tests use iproute2 (namespaces, veth), ping,
# sysctl, ethtool and iperf3 from Debian. Installs what is missing (as root only:
# without root Prism runs over in-memory ports and needs none of them).
if [ "$(id -u)" -eq 0 ]; then
    net_need=()
    command -v ip >/dev/null 2>&1 || net_need+=(iproute2)
    command -v ping >/dev/null 2>&1 || net_need+=(iputils-ping)
    command -v sysctl >/dev/null 2>&1 || net_need+=(procps)
    command -v iperf3 >/dev/null 2>&1 || net_need+=(iperf3)
    command -v ethtool >/dev/null 2>&1 || net_need+=(ethtool)
    if [ ${#net_need[@]} -gt 0 ]; then
        echo "prism: installing ${net_need[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${net_need[@]}" >/dev/null
    fi
fi
