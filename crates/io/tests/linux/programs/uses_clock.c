// Calls bpf_ktime_get_ns, a helper the kernel gives XDP programs but
// Prism's slot does not (a program has no clock there): refused at load,
// at the instruction of the call.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int uses_clock(struct xdp_md *ctx)
{
    return bpf_ktime_get_ns() & 1 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
