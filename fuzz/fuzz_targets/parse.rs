//! Any bytes as an Ethernet frame, and as an IPv6 packet: no panic, and
//! re-emitting what parsed gives back the same bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    prism_wire::fuzz::parse_and_reemit(data);
    prism_wire::fuzz::ipv6_views(data);
});
