//! Tests of `disk_cache.rs`: the directory choice, the names, the file format, the writes and the
//! identification of compiler libraries. They need no compiler.

use super::test_support::{TempDir, entries};
use super::*;
use std::collections::HashMap;

/// A magic like CUDA's.
const CUBIN: &[u8; 8] = b"FKCUBIN1";
/// A magic like HIP's.
const HIPCO: &[u8; 8] = b"FKHIPCO1";

/// Whether `image` starts with the ELF magic (the CUDA backend's check).
fn is_elf(image: &[u8]) -> bool {
    image.starts_with(b"\x7fELF")
}

/// [`cache_dir`] over a fixed map of variables.
fn dir_for(vars: &[(&str, &str)]) -> Option<PathBuf> {
    let map: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    cache_dir(|name| map.get(name).cloned())
}

#[test]
fn the_directory_follows_the_environment() {
    let all = [
        (CACHE_DIR_VAR, "/c/fk"),
        ("XDG_CACHE_HOME", "/x"),
        ("HOME", "/h"),
    ];
    assert_eq!(dir_for(&all), Some(PathBuf::from("/c/fk")));
    assert_eq!(dir_for(&all[1..]), Some(PathBuf::from("/x/ferrokkos")));
    assert_eq!(
        dir_for(&all[2..]),
        Some(PathBuf::from("/h/.cache/ferrokkos"))
    );
    assert_eq!(dir_for(&[]), None);
    // Empty variables count as unset; a relative XDG_CACHE_HOME is ignored.
    assert_eq!(
        dir_for(&[(CACHE_DIR_VAR, ""), ("XDG_CACHE_HOME", ""), ("HOME", "/h")]),
        Some(PathBuf::from("/h/.cache/ferrokkos"))
    );
    assert_eq!(
        dir_for(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")]),
        Some(PathBuf::from("/h/.cache/ferrokkos"))
    );
    // `off` and `0` turn the disk cache off, whatever else is set.
    for off in ["off", "0", " off "] {
        assert_eq!(dir_for(&[(CACHE_DIR_VAR, off), all[1], all[2]]), None);
    }
    assert!(
        Store::at(None, CUBIN)
            .entry("sm_90", b"k".to_vec())
            .is_none()
    );
}

#[test]
fn the_hashes_match_known_values() {
    // FNV-1a 64 reference values (from the FNV specification's test vectors).
    assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    // The second hash differs on inputs that differ only in zero padding or length.
    assert_ne!(mix_hash(b""), mix_hash(b"\0"));
    assert_ne!(mix_hash(b"abc"), mix_hash(b"abc\0"));
    assert_ne!(mix_hash(b"abcdefgh"), mix_hash(b"abcdefgi"));
}

#[test]
fn targets_become_safe_directory_names() {
    assert_eq!(target_dir_name("sm_90"), "sm_90");
    assert_eq!(target_dir_name("gfx90a"), "gfx90a");
    assert_eq!(target_dir_name("gfx90a:xnack+"), "gfx90a_xnack+");
    assert_eq!(
        target_dir_name("gfx90a:sramecc-:xnack+"),
        "gfx90a_sramecc-_xnack+"
    );
    // Nothing can climb out of the cache directory or name a hidden or empty component.
    assert_eq!(target_dir_name("../x"), "___x");
    assert_eq!(target_dir_name("a/b\\c"), "a_b_c");
    assert_eq!(target_dir_name(".."), "__");
    assert_eq!(target_dir_name(""), "_");

    let path = entry_path(Path::new("/c"), "gfx90a:xnack+", b"key");
    assert_eq!(path.parent(), Some(Path::new("/c/gfx90a_xnack+")));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let expected = format!("{:016x}{:016x}.fkc", fnv1a_64(b"key"), mix_hash(b"key"));
    assert_eq!(name, expected);
}

#[test]
fn entries_decode_only_with_their_exact_key_magic_and_a_valid_image() {
    let image = b"\x7fELF and the rest of an image".to_vec();
    let key = b"key 1\nsource".to_vec();
    let bytes = encode_entry(CUBIN, &key, &image);
    assert_eq!(&bytes[..8], CUBIN);
    assert_eq!(decode_entry(&bytes, CUBIN, &key, is_elf), Some(&image[..]));
    // Another key (as after a hash collision) is a miss.
    assert_eq!(decode_entry(&bytes, CUBIN, b"key 1\nsourcf", is_elf), None);
    // Another backend's magic is a miss.
    assert_eq!(decode_entry(&bytes, HIPCO, &key, is_elf), None);
    // Every truncation is a miss, and so are trailing bytes and a wrong magic.
    for len in 0..bytes.len() {
        assert_eq!(
            decode_entry(&bytes[..len], CUBIN, &key, is_elf),
            None,
            "truncated to {len}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(decode_entry(&longer, CUBIN, &key, is_elf), None);
    let mut magic = bytes.clone();
    magic[7] = b'2';
    assert_eq!(decode_entry(&magic, CUBIN, &key, is_elf), None);
    // A huge length field is a miss, not an allocation.
    let mut huge = bytes.clone();
    let at = CUBIN.len() + 8 + key.len();
    huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(decode_entry(&huge, CUBIN, &key, is_elf), None);
    // An image the caller's check refuses is a miss.
    let junk = encode_entry(CUBIN, &key, b"junk");
    assert_eq!(decode_entry(&junk, CUBIN, &key, is_elf), None);
    assert_eq!(
        decode_entry(&junk, CUBIN, &key, |_| true),
        Some(&b"junk"[..])
    );
}

#[test]
fn a_store_writes_entries_atomically_and_reads_them_back() {
    let tmp = TempDir::new("store");
    let store = Store::at(Some(tmp.0.clone()), HIPCO);
    assert_eq!(store.dir(), Some(tmp.0.as_path()));
    let entry = store
        .entry("gfx90a:xnack+", b"the key".to_vec())
        .expect("the store is on");
    assert!(!entry.exists());
    assert_eq!(entry.read(|_| true), None);

    let image = b"\x7fELF image".to_vec();
    entry.write(&image).expect("written");
    assert!(entry.exists());
    let (files, tmp_left) = entries(&tmp.0);
    assert_eq!(files, [entry.path().to_path_buf()]);
    assert!(!tmp_left, "no temporary file is left behind");
    assert_eq!(
        entry.path().parent(),
        Some(tmp.0.join("gfx90a_xnack+").as_path())
    );
    assert_eq!(
        fs::read(entry.path()).expect("readable"),
        encode_entry(HIPCO, b"the key", &image)
    );
    assert_eq!(entry.read(is_elf), Some(image.clone()));
    // The caller's check decides: a refused image is a miss.
    assert_eq!(entry.read(|i| i.ends_with(b"other")), None);

    // Another store's magic or another key at the same file is a miss.
    let cubin = Store::at(Some(tmp.0.clone()), CUBIN)
        .entry("gfx90a:xnack+", b"the key".to_vec())
        .expect("on");
    assert_eq!(cubin.path(), entry.path());
    assert_eq!(cubin.read(|_| true), None);

    // A rewrite replaces the entry whole.
    entry.write(b"\x7fELF new").expect("rewritten");
    assert_eq!(entry.read(is_elf), Some(b"\x7fELF new".to_vec()));
    assert_eq!(entries(&tmp.0).0.len(), 1);
}

#[test]
fn a_failed_write_is_an_error_and_leaves_nothing() {
    let tmp = TempDir::new("blocked");
    // A regular file where the cache directory should be: every write fails.
    fs::write(&tmp.0, b"not a directory").expect("create the blocking file");
    let entry = Store::at(Some(tmp.0.clone()), CUBIN)
        .entry("sm_90", b"k".to_vec())
        .expect("on");
    assert!(entry.write(b"\x7fELF").is_err());
    assert_eq!(entry.read(|_| true), None);
    assert_eq!(fs::read(&tmp.0).expect("still there"), b"not a directory");
    let _ = fs::remove_file(&tmp.0);
}

#[test]
fn a_library_is_identified_by_its_first_candidate_file_found() {
    let tmp = TempDir::new("library");
    let (a, b) = (tmp.0.join("a"), tmp.0.join("b"));
    fs::create_dir_all(&a).expect("mkdir a");
    fs::create_dir_all(b.join("libfake.so.3")).expect("a directory named like a candidate");
    fs::write(a.join("libfake.so.1"), b"one").expect("write");
    fs::write(b.join("libfake.so.2"), b"two!").expect("write");
    let dirs = [a.clone(), b.clone()];
    let canonical = |p: PathBuf| fs::canonicalize(p).expect("exists");

    // Candidates are tried in order, each in every directory; a directory is not a library.
    let id =
        library::find_in(["libfake.so.3", "libfake.so.2", "libfake.so.1"], &dirs).expect("found");
    let real = canonical(b.join("libfake.so.2"));
    assert!(
        id.starts_with(&format!("file {} 4 ", real.display())),
        "{id}"
    );
    let mtime: u128 = id.rsplit(' ').next().unwrap_or("").parse().expect("mtime");
    assert!(mtime > 0, "{id}");

    // A symbolic link is named by the file it points to.
    std::os::unix::fs::symlink(a.join("libfake.so.1"), a.join("libfake.so")).expect("symlink");
    let id = library::find_in(["libfake.so"], &dirs).expect("found");
    let real = canonical(a.join("libfake.so.1"));
    assert!(
        id.starts_with(&format!("file {} 3 ", real.display())),
        "{id}"
    );

    // An absolute candidate is looked at as it is.
    let absolute = b.join("libfake.so.2");
    assert_eq!(
        library::find_in([&absolute], &[]),
        library::find_in(["libfake.so.2"], &dirs)
    );

    // A change of the file (an upgrade) changes the identity.
    let before = library::find_in(["libfake.so.1"], &dirs);
    fs::write(a.join("libfake.so.1"), b"one, upgraded").expect("write");
    let after = library::find_in(["libfake.so.1"], &dirs).expect("found");
    assert_ne!(before.as_deref(), Some(after.as_str()));
    assert!(after.contains(" 13 "), "{after}");

    // Nothing found: the caller's fallback.
    assert_eq!(library::find_in(["libnone.so"], &dirs), None);
    let missing = tmp.0.join("libnone.so");
    assert_eq!(
        library_identity([&missing], &[], || "version 1.2".to_string()),
        "version 1.2"
    );
    let found = library_identity([&absolute], &[], || "version 1.2".to_string());
    assert!(
        found.starts_with("file /") && found.contains("libfake.so.2"),
        "{found}"
    );
}
