// Counts to four billion on every frame: far past any budget a network may
// give its program (65,536 instructions), so that every frame's run ends
// in `hardware/program-budget`. The kernel's verifier would refuse it (its
// loop is too long to prove); the node's engine, which never trusts the
// verifier, must stop it on its own.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int spins(struct xdp_md *ctx)
{
    volatile __u32 n = 0;
    while (n != 0xffffffff)
        n++;
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
