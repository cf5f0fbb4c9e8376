// Reads the byte after an Ethernet header without checking the frame is
// that long: the kernel's verifier refuses it ("invalid access to packet").
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int past_the_end(struct xdp_md *ctx)
{
    unsigned char *data = (void *)(long)ctx->data;
    return data[14] == 1 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
