// Pins its map by name, so that any program pinning the same name shares
// it (another network's, in the kernel): refused, a program's maps are
// its own.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
    __uint(pinning, LIBBPF_PIN_BY_NAME);
} shared SEC(".maps");

SEC("xdp")
int pinned_map(struct xdp_md *ctx)
{
    __u32 k = 0;
    __u64 *v = bpf_map_lookup_elem(&shared, &k);
    if (v)
        __sync_fetch_and_add(v, 1);
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
