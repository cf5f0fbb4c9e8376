// A content-based router (VANI's example, paper 002 §2.2): a UDP datagram's
// output port is chosen by the first byte of its payload, through the
// array `routes` (byte -> port + 1; 0: no route, the network's own tables
// decide). Fill it through the API: PUT .../bookings/{id}/maps/routes.
// Frames that are not UDP over IPv4 are left to the tables; a datagram
// with no payload is dropped.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 256);
    __type(key, __u32);
    __type(value, __u32);
} routes SEC(".maps");

SEC("xdp")
int content_router(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
        return XDP_PASS;
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_UDP)
        return XDP_PASS;
    struct udphdr *udp = (void *)ip + ip->ihl * 4;
    if ((void *)(udp + 1) > end)
        return XDP_PASS;
    __u8 *payload = (void *)(udp + 1);
    if ((void *)(payload + 1) > end)
        return XDP_DROP;
    __u32 key = *payload;
    __u32 *port = bpf_map_lookup_elem(&routes, &key);
    if (!port || *port == 0)
        return XDP_PASS;
    return bpf_redirect(*port - 1, 0);
}

char LICENSE[] SEC("license") = "GPL";
