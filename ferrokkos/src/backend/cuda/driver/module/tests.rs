//! Tests of `module.rs`.

use super::super::{alloc_device, copy, device_info, fill_async, free_device, test_context};
use super::*;
use crate::error::BackendError;

/// A minimal little-endian ELF64 header with the given table offsets and counts.
fn elf(len: usize, shoff: u64, shnum: u16) -> Vec<u8> {
    let mut image = vec![0u8; len];
    image[..4].copy_from_slice(b"\x7fELF");
    image[4] = 2; // ELFCLASS64
    image[5] = 1; // little-endian
    image[40..48].copy_from_slice(&shoff.to_le_bytes());
    image[58..60].copy_from_slice(&64u16.to_le_bytes());
    image[60..62].copy_from_slice(&shnum.to_le_bytes());
    image
}

#[test]
fn images_must_lie_within_the_slice() {
    assert!(validate_image(&elf(64, 0, 0)).is_ok());
    // One section header at 64, describing 16 bytes at 128: fits in 144 bytes, not in 143.
    let mut image = elf(144, 64, 1);
    image[64 + 4..64 + 8].copy_from_slice(&1u32.to_le_bytes()); // SHT_PROGBITS
    image[64 + 24..64 + 32].copy_from_slice(&128u64.to_le_bytes());
    image[64 + 32..64 + 40].copy_from_slice(&16u64.to_le_bytes());
    assert!(validate_image(&image).is_ok());
    image.pop();
    assert!(validate_image(&image).is_err());
    // A section header table past the end.
    assert!(validate_image(&elf(64, 64, 1)).is_err());
    // A header table whose size overflows.
    assert!(validate_image(&elf(64, u64::MAX - 8, 2)).is_err());
    // Truncated header, 32-bit ELF.
    assert!(validate_image(&elf(64, 0, 0)[..40]).is_err());
    let mut elf32 = elf(64, 0, 0);
    elf32[4] = 1;
    assert!(validate_image(&elf32).is_err());
    // PTX text must be NUL-terminated.
    assert!(validate_image(b".version 8.0\n\0").is_ok());
    assert!(validate_image(b".version 8.0\n").is_err());
    assert!(validate_image(b"").is_err());
}

#[test]
fn the_extra_array_passes_one_parameter_buffer() {
    let mut params = [0u8; 24];
    let mut size = params.len();
    let expected_params = params.as_mut_ptr().cast::<c_void>();
    let expected_size = (&raw mut size).cast::<c_void>();
    let extra = extra_for(&mut params, &mut size);
    assert_eq!(extra[0] as usize, 1);
    assert_eq!(extra[1], expected_params);
    assert_eq!(extra[2] as usize, 2);
    assert_eq!(extra[3], expected_size);
    assert!(extra[4].is_null());
}

/// Appends `bytes` to a parameter buffer at the next offset aligned to `align`.
fn push(buf: &mut Vec<u8>, bytes: &[u8], align: usize) {
    while !buf.len().is_multiple_of(align) {
        buf.push(0);
    }
    buf.extend_from_slice(bytes);
}

/// Compiles `source` with NVRTC for device 0 and loads it; `None` (skip) without NVRTC.
fn compile(ctx: &Arc<Context>, source: &str, name: &str) -> Option<Arc<Module>> {
    if !crate::nvrtc::require_or_skip() {
        return None;
    }
    let arch = device_info(ctx.ordinal()).expect("device info").arch();
    let cubin = crate::nvrtc::compile_cubin(source, name, arch).expect("compile");
    Some(Module::load(ctx, &cubin.image, || format!("loading {name}")).expect("load"))
}

const PARAMS_KERNEL: &str = r#"
extern "C" __global__ void params(unsigned long long* out, int a, double b, unsigned char c,
                              float d) {
if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = (unsigned long long)(long long)a;
    out[1] = (unsigned long long)__double_as_longlong(b);
    out[2] = c;
    out[3] = __float_as_uint(d);
}
atomicAdd(&out[4], 1ull);
}
"#;

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_receives_its_parameter_buffer() {
    let ctx = test_context();
    let Some(module) = compile(&ctx, PARAMS_KERNEL, "params.cu") else {
        return;
    };
    assert!(Arc::ptr_eq(module.context(), &ctx));
    let f = module
        .function("params", || "get params".into())
        .expect("function");
    assert!(!f.raw().is_null() && !module.raw().is_null());
    let stream = Stream::new(&ctx, || "stream".into()).expect("stream");
    let out = alloc_device(&ctx, 5 * 8, None, || "out".into()).expect("alloc");
    // SAFETY: `out` holds 40 bytes.
    unsafe { fill_async(out, &[0], 40, &stream, || "clear".into()) }.expect("clear");

    let mut params = Vec::new();
    push(&mut params, &out.to_ne_bytes(), 8);
    push(&mut params, &(-7i32).to_ne_bytes(), 4);
    push(&mut params, &2.5f64.to_ne_bytes(), 8);
    push(&mut params, &[200u8], 1);
    push(&mut params, &1.25f32.to_ne_bytes(), 4);
    assert_eq!(params.len(), 32);
    // SAFETY: the buffer matches `params`'s signature; `out` outlives the kernel (synchronized
    // below).
    unsafe { launch(&f, 3, 64, 0, &stream, &mut params, || "launch".into()) }.expect("launch");
    stream.synchronize(|| "sync".into()).expect("kernel ran");

    let mut host = [0u64; 5];
    // SAFETY: both hold 40 bytes; the kernel completed.
    unsafe { copy(host.as_mut_ptr() as u64, out, 40, &ctx, || "read".into()) }.expect("read");
    assert_eq!(host[0] as i64, -7);
    assert_eq!(f64::from_bits(host[1]), 2.5);
    assert_eq!(host[2], 200);
    assert_eq!(f32::from_bits(host[3] as u32), 1.25);
    assert_eq!(host[4], 3 * 64, "every thread ran once");

    let missing = module.function("nope", || "get nope".into());
    assert!(
        matches!(&missing, Err(Error::Backend(BackendError::Cuda { call: "cuModuleGetFunction", name, .. }))
            if name == "CUDA_ERROR_NOT_FOUND"),
        "{missing:?}"
    );
    // SAFETY: the kernel completed.
    unsafe { free_device(&ctx, out, None) }.expect("free");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn parameters_may_take_32764_bytes() {
    let ctx = test_context();
    let source = r#"
struct Big { int v[8000]; };
extern "C" __global__ void big(int* out, Big b) {
for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 8000; i += gridDim.x * blockDim.x) {
    out[i] = b.v[i] * 2 + 1;
}
}
"#;
    let Some(module) = compile(&ctx, source, "big.cu") else {
        return;
    };
    let f = module
        .function("big", || "get big".into())
        .expect("function");
    let stream = Stream::new(&ctx, || "stream".into()).expect("stream");
    let out = alloc_device(&ctx, 8000 * 4, None, || "out".into()).expect("alloc");
    let mut params = Vec::new();
    push(&mut params, &out.to_ne_bytes(), 8);
    for i in 0..8000i32 {
        push(&mut params, &i.to_ne_bytes(), 4);
    }
    assert_eq!(params.len(), 32008);
    // SAFETY: the buffer matches `big`'s signature; `out` holds 8000 ints and outlives it.
    unsafe { launch(&f, 4, 256, 0, &stream, &mut params, || "launch big".into()) }.expect("launch");
    stream.synchronize(|| "sync".into()).expect("kernel ran");
    let mut host = vec![0i32; 8000];
    // SAFETY: both hold 32000 bytes; the kernel completed.
    unsafe { copy(host.as_mut_ptr() as u64, out, 32000, &ctx, || "read".into()) }.expect("read");
    assert!(host.iter().enumerate().all(|(i, &v)| v == 2 * i as i32 + 1));

    let mut too_big = vec![0u8; MAX_PARAM_BYTES + 1];
    // SAFETY: refused before the driver is called.
    let err = unsafe { launch(&f, 1, 1, 0, &stream, &mut too_big, || "x".into()) };
    assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
    // SAFETY: the kernel completed.
    unsafe { free_device(&ctx, out, None) }.expect("free");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn occupancy_queries_give_usable_block_sizes() {
    let ctx = test_context();
    let source = r#"
extern "C" __global__ void shared_user(float* out) {
extern __shared__ float s[];
s[threadIdx.x] = threadIdx.x;
__syncthreads();
out[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
"#;
    let Some(module) = compile(&ctx, source, "shared_user.cu") else {
        return;
    };
    let info = device_info(0).expect("info");
    let f = module
        .function("shared_user", || "get".into())
        .expect("function");
    let max = f
        .max_threads_per_block(|| "max threads".into())
        .expect("attr");
    assert!((32..=1024).contains(&max), "{max}");

    let (grid, block) = f
        .suggested_block_size(0, info.sm_count, || "suggest".into())
        .expect("suggest");
    assert!(
        block >= 32 && block <= max && block % 32 == 0,
        "block {block}"
    );
    assert!(grid >= info.sm_count, "grid {grid}");

    let (grid, block) = f
        .suggested_block_size(4, info.sm_count, || "suggest 4".into())
        .expect("suggest with shared memory per thread");
    assert!(
        block >= 32 && block <= max && block % 32 == 0,
        "block {block}"
    );
    let per_sm = f
        .max_active_blocks_per_sm(block, 4 * block as usize, || "active".into())
        .expect("active");
    assert_eq!(grid, per_sm * info.sm_count);

    // Above 48 KiB of dynamic shared memory the kernel must opt in.
    let big = 56 << 10;
    f.set_max_dynamic_shared(big, || "opt in".into())
        .expect("opt in");
    assert!(
        f.max_active_blocks_per_sm(256, big, || "yes".into())
            .expect("query")
            >= 1
    );
    let err = f.suggested_block_size(1 << 20, info.sm_count, || "too much".into());
    assert!(matches!(err, Err(Error::Unsupported { .. })), "{err:?}");

    // Launch with the suggested configuration and the opted-in shared memory.
    let stream = Stream::new(&ctx, || "stream".into()).expect("stream");
    let n = 256 * 2;
    let out = alloc_device(&ctx, n * 4, None, || "out".into()).expect("alloc");
    let mut params = out.to_ne_bytes().to_vec();
    // SAFETY: matches `shared_user(float*)`; `out` holds 2 blocks of 256 floats; 1 KiB of the
    // 56 KiB shared memory is used.
    unsafe {
        launch(&f, 2, 256, big as u32, &stream, &mut params, || {
            "launch".into()
        })
    }
    .expect("launch");
    stream.synchronize(|| "sync".into()).expect("kernel ran");
    let mut host = vec![0f32; n];
    // SAFETY: both hold `n` floats; the kernel completed.
    unsafe { copy(host.as_mut_ptr() as u64, out, n * 4, &ctx, || "read".into()) }.expect("read");
    assert!(
        host.iter()
            .enumerate()
            .all(|(i, &v)| v == (255 - i % 256) as f32)
    );
    // SAFETY: the kernel completed.
    unsafe { free_device(&ctx, out, None) }.expect("free");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn garbage_is_refused_before_the_driver_sees_it() {
    let ctx = test_context();
    let err = Module::load(&ctx, b"not a module", || "load".into()).expect_err("garbage");
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    let err = Module::load(&ctx, &elf(100, 64, 3), || "load".into()).expect_err("truncated");
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
}
