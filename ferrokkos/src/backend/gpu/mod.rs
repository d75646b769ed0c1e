//! What the GPU backends share: the code generator ([`codegen`]), which turns a kernel's
//! backend-neutral body into C++ entry points over one device header. CUDA and HIP speak nearly the
//! same kernel language, so one emitter serves both; the few differences (warp width, shuffles,
//! masks) sit in one small target prelude per language (`codegen/device/target_*.h`), chosen by
//! [`codegen::Target`]. Each backend compiles the text with its own run-time compiler (NVRTC in
//! `backend/cuda`, hiprtc in `backend/hip`).

pub(crate) mod codegen;
