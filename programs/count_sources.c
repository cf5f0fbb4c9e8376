// A counter per IPv4 source address: every frame the network receives is
// counted under its source in the hash map `counts` (read it through the
// API: GET .../bookings/{id}/maps/counts), then forwarded by the network's
// own tables (XDP_PASS).
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4096);
    __type(key, __u32);   /* the source address, as on the wire */
    __type(value, __u64); /* frames seen */
} counts SEC(".maps");

SEC("xdp")
int count_sources(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
        return XDP_PASS;
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end)
        return XDP_PASS;
    __u32 src = ip->saddr;
    __u64 *n = bpf_map_lookup_elem(&counts, &src);
    if (n) {
        __sync_fetch_and_add(n, 1);
    } else {
        __u64 one = 1;
        bpf_map_update_elem(&counts, &src, &one, BPF_NOEXIST);
    }
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
