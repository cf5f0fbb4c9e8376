//! Bytes as rule inserts, deletes and lookups: the tuple-space classifier
//! must agree with the linear reference on every lookup.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| prism_tables::fuzz::classifier_matches_reference(data));
