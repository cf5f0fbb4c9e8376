// A new header between two nodes of a span: an 8-byte shim after the IPv4
// header (IP protocol 253, for experiments: RFC 3692), pushed on every
// frame that enters the network without one and popped from every frame
// that comes with one. On a span whose parts each serve their own hosts,
// that is: pushed where a frame enters the span, carried across the wide
// area with it, popped where it leaves; the hosts never see it. The shim
// holds the original protocol, a magic number and a sequence number (the
// array `stats`: [0] frames pushed, [1] popped, [2] the next sequence).
// Frames with IP options are left alone. A frame of a network on a VLAN
// (a booking's: the controller gives each its own) comes with its 802.1Q
// tag, as on the port: the shim goes after the tagged Ethernet header's
// IPv4 header all the same.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SHIM_PROTO 253
#define SHIM_MAGIC 0x5052 /* "PR" */
#define ETH_LEN sizeof(struct ethhdr)
#define IP_LEN sizeof(struct iphdr)
/* An 802.1Q or 802.1ad tag: a network on a VLAN (a booking's) has one. */
#define TAG_LEN 4

struct shim {
    __u8 proto;
    __u8 flags;
    __be16 magic;
    __be32 seq;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 3);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

static __always_inline void count(__u32 k)
{
    __u64 *n = bpf_map_lookup_elem(&stats, &k);
    if (n)
        __sync_fetch_and_add(n, 1);
}

/* RFC 1624: the checksum after one 16-bit word changed from `from` to `to`. */
static __always_inline __u16 csum_replace(__u16 check, __u16 from, __u16 to)
{
    __u32 sum = (__u16)~check + (__u16)~from + to;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return ~sum;
}

static __always_inline void set_ip(struct iphdr *ip, __u8 proto, __u16 len)
{
    __u16 old_word = *(__u16 *)&ip->ttl;
    __u16 old_len = ip->tot_len;
    ip->protocol = proto;
    ip->tot_len = bpf_htons(len);
    ip->check = csum_replace(ip->check, old_word, *(__u16 *)&ip->ttl);
    ip->check = csum_replace(ip->check, old_len, ip->tot_len);
}

/* The headers before the shim, `l2` of Ethernet (and tag) then IPv4's,
   moved down into the headroom and the shim written after them. `l2` is a
   constant at each call: each copy's sizes are known to the verifier. */
static __always_inline int push(struct xdp_md *ctx, const __u32 l2)
{
    if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct shim)))
        return XDP_DROP;
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    if (data + l2 + IP_LEN + sizeof(struct shim) > end)
        return XDP_DROP;
    __builtin_memmove(data, data + sizeof(struct shim), l2 + IP_LEN);
    struct iphdr *ip = data + l2;
    struct shim *s = data + l2 + IP_LEN;
    s->proto = ip->protocol;
    s->flags = 0;
    s->magic = bpf_htons(SHIM_MAGIC);
    __u32 k = 2;
    __u64 *seq = bpf_map_lookup_elem(&stats, &k);
    s->seq = bpf_htonl(seq ? (__u32)__sync_fetch_and_add(seq, 1) : 0);
    set_ip(ip, SHIM_PROTO, bpf_ntohs(ip->tot_len) + sizeof(struct shim));
    count(0);
    return XDP_PASS;
}

static __always_inline int pop(struct xdp_md *ctx, const __u32 l2)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    if (data + l2 + IP_LEN + sizeof(struct shim) > end)
        return XDP_DROP;
    struct iphdr *ip = data + l2;
    struct shim *s = data + l2 + IP_LEN;
    if (s->magic != bpf_htons(SHIM_MAGIC))
        return XDP_DROP;
    set_ip(ip, s->proto, bpf_ntohs(ip->tot_len) - sizeof(struct shim));
    __builtin_memmove(data + sizeof(struct shim), data, l2 + IP_LEN);
    if (bpf_xdp_adjust_head(ctx, (int)sizeof(struct shim)))
        return XDP_DROP;
    count(1);
    return XDP_PASS;
}

/* An IPv4 frame whose IP header starts at `l2`: the shim pushed, or
   popped if it has one. */
static __always_inline int shim_at(struct xdp_md *ctx, const __u32 l2)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct iphdr *ip = data + l2;
    if ((void *)(ip + 1) > end || ip->ihl != 5)
        return XDP_PASS;
    if (ip->protocol != SHIM_PROTO)
        return push(ctx, l2);
    return pop(ctx, l2);
}

SEC("xdp")
int shim_header(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data;
    void *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end)
        return XDP_PASS;
    if (eth->h_proto == bpf_htons(ETH_P_IP))
        return shim_at(ctx, ETH_LEN);
    if (eth->h_proto != bpf_htons(ETH_P_8021Q) && eth->h_proto != bpf_htons(ETH_P_8021AD))
        return XDP_PASS;
    __be16 *inner = data + ETH_LEN + 2;
    if ((void *)(inner + 1) > end || *inner != bpf_htons(ETH_P_IP))
        return XDP_PASS;
    return shim_at(ctx, ETH_LEN + TAG_LEN);
}

char LICENSE[] SEC("license") = "GPL";
