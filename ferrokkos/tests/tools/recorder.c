/*
 * A Kokkos Tools library for ferrokkos' tests: it records every callback it receives.
 *
 * It exports the kokkosp_* functions of Kokkos' profiling C interface (version 20240906, as in
 * Kokkos' core/src/impl/Kokkos_Profiling_C_Interface.h), with Kokkos' exact C signatures. The
 * structs are declared here: no Kokkos header is needed.
 *
 * Output: the file named by FK_RECORDER_OUT (opened with "w" by kokkosp_init_library), or stderr
 * when it is unset (and before init / after finalize). One line per callback: the callback's name
 * without the kokkosp_ prefix, then its fields, separated by TABs. A tab, newline or carriage
 * return inside a string is written as a space; a NULL string as "(null)". Lines are written under
 * a mutex (callbacks come from several threads) and flushed one by one.
 *
 * Switches (environment):
 *   FK_RECORDER_NO_GLOBAL_FENCE=1  request_tool_settings clears requires_global_fencing.
 *   FK_RECORDER_CALL_FENCE=<id>    the first profile_event named "call fence" records
 *                                  "tool_fence <id>" and calls the fence Kokkos provided with
 *                                  that device id (without holding the mutex: the fence's own
 *                                  callbacks come back here). With no fence provided, it records
 *                                  "tool_fence_missing <id>" instead.
 *
 * Compile-time: FK_RECORDER_OLD_TOOL leaves out end_parallel_scan, request_tool_settings,
 * provide_tool_programming_interface, begin_fence/end_fence and declare_metadata (an old tool).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Kokkos_Profiling_KokkosPDeviceInfo {
  size_t deviceID;
};

struct Kokkos_Profiling_SpaceHandle {
  char name[64];
};

struct Kokkos_Tools_ToolProgrammingInterface {
  void (*fence)(const uint32_t);
  void (*padding[31])(void);
};

struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

/* Prototypes of the exported functions (Kokkos' signatures). */
void kokkosp_init_library(const int loadSeq, const uint64_t interfaceVer,
                          const uint32_t devInfoCount,
                          struct Kokkos_Profiling_KokkosPDeviceInfo *deviceInfo);
void kokkosp_finalize_library(void);
void kokkosp_parse_args(int argc, char **argv);
void kokkosp_print_help(char *exe);
#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_request_tool_settings(const uint32_t num_settings,
                                   struct Kokkos_Tools_ToolSettings *settings);
void kokkosp_provide_tool_programming_interface(
    const uint32_t num_funcs, struct Kokkos_Tools_ToolProgrammingInterface funcs);
#endif
void kokkosp_begin_parallel_for(const char *name, const uint32_t devID, uint64_t *kID);
void kokkosp_end_parallel_for(const uint64_t kID);
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t devID, uint64_t *kID);
void kokkosp_end_parallel_reduce(const uint64_t kID);
void kokkosp_begin_parallel_scan(const char *name, const uint32_t devID, uint64_t *kID);
#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_end_parallel_scan(const uint64_t kID);
void kokkosp_begin_fence(const char *name, const uint32_t devID, uint64_t *kID);
void kokkosp_end_fence(const uint64_t kID);
#endif
void kokkosp_push_profile_region(const char *name);
void kokkosp_pop_profile_region(void);
void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle handle, const char *name,
                           const void *ptr, const uint64_t size);
void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle handle, const char *name,
                             const void *ptr, const uint64_t size);
void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_handle, const char *dst_name,
                             const void *dst_ptr, struct Kokkos_Profiling_SpaceHandle src_handle,
                             const char *src_name, const void *src_ptr, uint64_t size);
void kokkosp_end_deep_copy(void);
void kokkosp_create_profile_section(const char *name, uint32_t *sec_id);
void kokkosp_start_profile_section(const uint32_t sec_id);
void kokkosp_stop_profile_section(const uint32_t sec_id);
void kokkosp_destroy_profile_section(const uint32_t sec_id);
void kokkosp_profile_event(const char *name);
#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_declare_metadata(const char *key, const char *value);
void kokkosp_dual_view_sync(const char *label, const void *ptr, bool is_device);
void kokkosp_dual_view_modify(const char *label, const void *ptr, bool is_device);
#endif

/* State: everything below is guarded by `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out = NULL;              /* NULL: write to stderr */
static uint64_t next_kernel_id = 1;   /* shared by for, reduce and scan */
#ifndef FK_RECORDER_OLD_TOOL
static uint64_t next_fence_id = 1;
#endif
static uint32_t next_section_id = 1;
static void (*tool_fence)(const uint32_t) = NULL;
static bool fence_requested = false;  /* "call fence" was handled once */

static FILE *sink(void) { return out != NULL ? out : stderr; }

/* Writes `n` bytes of `s` (or up to its NUL), tabs and line breaks as spaces. */
static void put_bytes(FILE *f, const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n && s[i] != '\0'; ++i) {
    char c = s[i];
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    fputc(c, f);
  }
}

/* Lines: begin (callback name), fields, end. Called with `lock` held. */
static FILE *line_begin(const char *callback) {
  FILE *f = sink();
  fputs(callback, f);
  return f;
}

static void field_str(FILE *f, const char *s) {
  fputc('\t', f);
  if (s == NULL) {
    fputs("(null)", f);
  } else {
    put_bytes(f, s, (size_t)-1);
  }
}

/* A space name: at most the 64 bytes of the array, which might not be NUL-terminated. */
static void field_space(FILE *f, const struct Kokkos_Profiling_SpaceHandle *h) {
  fputc('\t', f);
  put_bytes(f, h->name, sizeof h->name);
}

static void field_u64(FILE *f, uint64_t v) { fprintf(f, "\t%" PRIu64, v); }

static void field_int(FILE *f, int v) { fprintf(f, "\t%d", v); }

static void field_ptr(FILE *f, const void *p) { fprintf(f, "\t0x%" PRIxPTR, (uintptr_t)p); }

static void field_null(FILE *f, bool is_null) { fputs(is_null ? "\tnull" : "\tnonnull", f); }

static void line_end(FILE *f) {
  fputc('\n', f);
  fflush(f);
}

/* A line with no field or one string field, under the lock. */
static void record0(const char *callback) {
  pthread_mutex_lock(&lock);
  line_end(line_begin(callback));
  pthread_mutex_unlock(&lock);
}

static void record_str(const char *callback, const char *s) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin(callback);
  field_str(f, s);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

static void record_u64(const char *callback, uint64_t v) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin(callback);
  field_u64(f, v);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

/* A begin callback: takes the next id of `counter`, writes it to `*id`, records the line. */
static void record_begin(const char *callback, const char *name, uint32_t dev, uint64_t *counter,
                         uint64_t *id) {
  FILE *f;
  uint64_t mine;
  pthread_mutex_lock(&lock);
  mine = (*counter)++;
  if (id != NULL) *id = mine;
  f = line_begin(callback);
  field_str(f, name);
  field_u64(f, dev);
  field_u64(f, mine);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_init_library(const int loadSeq, const uint64_t interfaceVer,
                          const uint32_t devInfoCount,
                          struct Kokkos_Profiling_KokkosPDeviceInfo *deviceInfo) {
  const char *path = getenv("FK_RECORDER_OUT");
  FILE *f;
  pthread_mutex_lock(&lock);
  if (path != NULL && out == NULL) {
    out = fopen(path, "w");
    if (out == NULL) {
      fprintf(stderr, "fk_recorder: cannot open FK_RECORDER_OUT=%s; recording to stderr\n", path);
    }
  }
  f = line_begin("init_library");
  field_int(f, loadSeq);
  field_u64(f, interfaceVer);
  field_u64(f, devInfoCount);
  field_null(f, deviceInfo == NULL);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&lock);
  line_end(line_begin("finalize_library"));
  if (out != NULL) {
    fclose(out);
    out = NULL;
  }
  pthread_mutex_unlock(&lock);
}

void kokkosp_parse_args(int argc, char **argv) {
  FILE *f;
  int i;
  pthread_mutex_lock(&lock);
  f = line_begin("parse_args");
  field_int(f, argc);
  for (i = 0; i < argc; ++i) field_str(f, argv != NULL ? argv[i] : NULL);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_print_help(char *exe) { record_str("print_help", exe); }

#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_request_tool_settings(const uint32_t num_settings,
                                   struct Kokkos_Tools_ToolSettings *settings) {
  const char *clear = getenv("FK_RECORDER_NO_GLOBAL_FENCE");
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin("request_tool_settings");
  field_u64(f, num_settings);
  if (settings == NULL) {
    fputs("\tnull", f);
  } else {
    field_int(f, settings->requires_global_fencing ? 1 : 0);
  }
  line_end(f);
  if (settings != NULL && num_settings >= 1 && clear != NULL && strcmp(clear, "1") == 0) {
    settings->requires_global_fencing = false;
  }
  pthread_mutex_unlock(&lock);
}

void kokkosp_provide_tool_programming_interface(
    const uint32_t num_funcs, struct Kokkos_Tools_ToolProgrammingInterface funcs) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin("provide_tool_programming_interface");
  field_u64(f, num_funcs);
  field_null(f, funcs.fence == NULL);
  line_end(f);
  tool_fence = num_funcs >= 1 ? funcs.fence : NULL;
  pthread_mutex_unlock(&lock);
}
#endif

void kokkosp_begin_parallel_for(const char *name, const uint32_t devID, uint64_t *kID) {
  record_begin("begin_parallel_for", name, devID, &next_kernel_id, kID);
}

void kokkosp_end_parallel_for(const uint64_t kID) { record_u64("end_parallel_for", kID); }

void kokkosp_begin_parallel_reduce(const char *name, const uint32_t devID, uint64_t *kID) {
  record_begin("begin_parallel_reduce", name, devID, &next_kernel_id, kID);
}

void kokkosp_end_parallel_reduce(const uint64_t kID) { record_u64("end_parallel_reduce", kID); }

void kokkosp_begin_parallel_scan(const char *name, const uint32_t devID, uint64_t *kID) {
  record_begin("begin_parallel_scan", name, devID, &next_kernel_id, kID);
}

#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_end_parallel_scan(const uint64_t kID) { record_u64("end_parallel_scan", kID); }

void kokkosp_begin_fence(const char *name, const uint32_t devID, uint64_t *kID) {
  record_begin("begin_fence", name, devID, &next_fence_id, kID);
}

void kokkosp_end_fence(const uint64_t kID) { record_u64("end_fence", kID); }
#endif

void kokkosp_push_profile_region(const char *name) { record_str("push_profile_region", name); }

void kokkosp_pop_profile_region(void) { record0("pop_profile_region"); }

static void record_data(const char *callback, const struct Kokkos_Profiling_SpaceHandle *handle,
                        const char *name, const void *ptr, uint64_t size) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin(callback);
  field_space(f, handle);
  field_str(f, name);
  field_ptr(f, ptr);
  field_u64(f, size);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle handle, const char *name,
                           const void *ptr, const uint64_t size) {
  record_data("allocate_data", &handle, name, ptr, size);
}

void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle handle, const char *name,
                             const void *ptr, const uint64_t size) {
  record_data("deallocate_data", &handle, name, ptr, size);
}

void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_handle, const char *dst_name,
                             const void *dst_ptr, struct Kokkos_Profiling_SpaceHandle src_handle,
                             const char *src_name, const void *src_ptr, uint64_t size) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin("begin_deep_copy");
  field_space(f, &dst_handle);
  field_str(f, dst_name);
  field_ptr(f, dst_ptr);
  field_space(f, &src_handle);
  field_str(f, src_name);
  field_ptr(f, src_ptr);
  field_u64(f, size);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_end_deep_copy(void) { record0("end_deep_copy"); }

#ifndef FK_RECORDER_OLD_TOOL
/* A DualView's sync or modification: its label, data pointer and side (1: the device). */
static void record_dual(const char *callback, const char *label, const void *ptr, bool device) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin(callback);
  field_str(f, label);
  field_ptr(f, ptr);
  field_u64(f, device ? 1 : 0);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_dual_view_sync(const char *label, const void *ptr, bool is_device) {
  record_dual("dual_view_sync", label, ptr, is_device);
}

void kokkosp_dual_view_modify(const char *label, const void *ptr, bool is_device) {
  record_dual("dual_view_modify", label, ptr, is_device);
}
#endif

void kokkosp_create_profile_section(const char *name, uint32_t *sec_id) {
  FILE *f;
  uint32_t mine;
  pthread_mutex_lock(&lock);
  mine = next_section_id++;
  if (sec_id != NULL) *sec_id = mine;
  f = line_begin("create_profile_section");
  field_str(f, name);
  field_u64(f, mine);
  line_end(f);
  pthread_mutex_unlock(&lock);
}

void kokkosp_start_profile_section(const uint32_t sec_id) {
  record_u64("start_profile_section", sec_id);
}

void kokkosp_stop_profile_section(const uint32_t sec_id) {
  record_u64("stop_profile_section", sec_id);
}

void kokkosp_destroy_profile_section(const uint32_t sec_id) {
  record_u64("destroy_profile_section", sec_id);
}

/* The device id in FK_RECORDER_CALL_FENCE, if it is set to a decimal uint32_t. */
static bool fence_request(uint32_t *id) {
  const char *text = getenv("FK_RECORDER_CALL_FENCE");
  char *end = NULL;
  unsigned long v;
  if (text == NULL || *text < '0' || *text > '9') return false;
  v = strtoul(text, &end, 10);
  if (*end != '\0' || v > UINT32_MAX) return false;
  *id = (uint32_t)v;
  return true;
}

void kokkosp_profile_event(const char *name) {
  FILE *f;
  uint32_t id = 0;
  void (*fence)(const uint32_t) = NULL;
  pthread_mutex_lock(&lock);
  f = line_begin("profile_event");
  field_str(f, name);
  line_end(f);
  if (!fence_requested && name != NULL && strcmp(name, "call fence") == 0 && fence_request(&id)) {
    fence_requested = true;
    fence = tool_fence;
    f = line_begin(fence != NULL ? "tool_fence" : "tool_fence_missing");
    field_u64(f, id);
    line_end(f);
  }
  pthread_mutex_unlock(&lock);
  /* Outside the lock: the fence calls begin_fence/end_fence of this tool. */
  if (fence != NULL) fence(id);
}

#ifndef FK_RECORDER_OLD_TOOL
void kokkosp_declare_metadata(const char *key, const char *value) {
  FILE *f;
  pthread_mutex_lock(&lock);
  f = line_begin("declare_metadata");
  field_str(f, key);
  field_str(f, value);
  line_end(f);
  pthread_mutex_unlock(&lock);
}
#endif
