// tflm_multi: run several .tflite models on ONE TensorFlow Lite Micro MicroAllocator (one arena, one
// MicroInterpreter per model: TFLM's "multi-tenant" use) and check them against each model run alone.
//
//   tflm_multi [--arena BYTES] [--min-arena] [--rounds R] [--handoff K:O=L:I ...] STAGE [STAGE ...]
//
// A STAGE is MODEL.tflite or MODEL.tflite,MODEL.tflite,... : the stages run one after another in
// the order given; the models of one stage run at the same time (one thread each, R rounds).
// Models are allocated on the shared allocator in the order given (AllocateTensors one after
// another), then run.
// --handoff K:O=L:I (model indices in the order given, output O of K, input I of L; K in an earlier
// stage): L's input I is not filled, it holds what K wrote (an offline plan that puts both tensors at
// one offset); the reference run of L alone gets K's alone output copied into that input.
//
// Output (one fact per line; offsets in bytes from the 16-aligned arena start):
//   model K PATH stage S
//   alone K head H tail T used U                 each model alone (plain allocator, 16 MiB arena)
//   shared_model K head H tail_added T           on the shared allocator: H = the end of this
//                                                model's highest planned buffer (its planner's
//                                                maximum), T = persistent bytes its interpreter added
//   shared_head H / shared_tail T / shared_used U   after every model is allocated: U = H + T =
//                                                arena_used_bytes(); H = the head TFLM reserved
//                                                (the largest model head), T = all tails
//   shared_output K I bytes B fnv1a 0x... alone 0x... match yes|no
//   concurrent_check ok | concurrent_overlap MODEL_A BUF_A [LO,HI) MODEL_B BUF_B [LO,HI)
//                                                (stages of several models: every planned buffer
//                                                of one model must share no byte with another's)
//   guards ok | guards CORRUPTED WHERE
//   min_arena N / min_arena_trials K tflm_crashed C  (--min-arena: the smallest arena, a multiple of
//                                                16, in which every model allocates on one allocator)
//   result ok | result FAIL STAGE
// Exit 0 ok; 1 a TFLM error, an output that differs from the model alone, an overlap or a guard
// hit; 2 usage or file error.
//
// The resolver, input fill, checksum, arena with guards and planner probe are tflm_run's: this file
// includes ../../../shared/tflm/tflm_run.cc (its main renamed), so both drivers run the same kernels
// on the same inputs.

#define main tflm_run_main
#include "tflm_run.cc"
#undef main

#include <algorithm>
#include <thread>

namespace {

struct Loaded {
  std::string path;
  std::vector<uint8_t> keep;  // 16-aligned copy below
  uint8_t* data = nullptr;
  size_t size = 0;
  const tflite::Model* model = nullptr;
  int stage = 0;
};

bool Load(const char* path, Loaded* m) {
  FILE* f = fopen(path, "rb");
  if (!f) { perror(path); return false; }
  fseek(f, 0, SEEK_END);
  m->size = ftell(f);
  fseek(f, 0, SEEK_SET);
  m->data = static_cast<uint8_t*>(aligned_alloc(16, (m->size + 15) / 16 * 16));
  if (fread(m->data, 1, m->size, f) != m->size) { perror(path); fclose(f); return false; }
  fclose(f);
  flatbuffers::Verifier v(m->data, m->size);
  if (!tflite::VerifyModelBuffer(v)) { fprintf(stderr, "%s: not a valid TFLite flatbuffer\n", path); return false; }
  m->model = tflite::GetModel(m->data);
  m->path = path;
  return true;
}

struct Range { long long lo, hi; int id; };

struct Handoff { size_t from, out, to, in; };

struct Shared {
  tflite::SingleArenaBufferAllocator* sa = nullptr;
  ProbePlanner* planner = nullptr;
  tflite::MicroAllocator* alloc = nullptr;
  std::vector<tflite::MicroInterpreter*> interps;
  std::vector<size_t> heads, tails;
  std::vector<std::vector<Range>> ranges;  // every planned buffer of each model
};

// Allocates every model, in order, on one allocator over arena a. Returns false (after printing
// "result FAIL ...") when TFLM refuses; print=false keeps it silent (min-arena trials).
bool AllocateAll(std::vector<Loaded>& ms, const tflite::MicroOpResolver& r, Arena& a, Shared* s, bool print) {
  s->sa = tflite::SingleArenaBufferAllocator::Create(a.arena, a.size);
  uint8_t* pbuf = s->sa->AllocatePersistentBuffer(sizeof(tflite::GreedyMemoryPlanner), alignof(tflite::GreedyMemoryPlanner));
  if (!pbuf) { if (print) printf("result FAIL arena-too-small-for-allocator\n"); return false; }
  s->planner = new (pbuf) ProbePlanner();
  s->alloc = tflite::MicroAllocator::Create(s->sa, s->planner);
  if (!s->alloc) { if (print) printf("result FAIL arena-too-small-for-allocator\n"); return false; }
  for (size_t k = 0; k < ms.size(); k++) {
    size_t before = s->sa->GetPersistentUsedBytes();
    auto* in = new tflite::MicroInterpreter(ms[k].model, r, s->alloc);
    if (in->initialization_status() != kTfLiteOk) { if (print) printf("result FAIL init %zu\n", k); return false; }
    g_requests.clear();
    if (in->AllocateTensors() != kTfLiteOk) { if (print) printf("result FAIL AllocateTensors %zu\n", k); return false; }
    s->interps.push_back(in);
    s->heads.push_back(s->planner->GetMaximumMemorySize());
    s->tails.push_back(s->sa->GetPersistentUsedBytes() - before);
    std::vector<Range> rs;
    for (size_t i = 0; i < g_requests.size(); i++) {
      int off = -1;
      if (g_requests[i].size > 0 && s->planner->GetOffsetForBuffer(static_cast<int>(i), &off) == kTfLiteOk)
        rs.push_back({off, off + g_requests[i].size, static_cast<int>(i)});
    }
    s->ranges.push_back(rs);
  }
  return true;
}

bool AllAllocateIn(std::vector<Loaded>& ms, const tflite::MicroOpResolver& r, size_t n, int* crashed) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    Arena a(n);
    Quiet q;
    Shared s;
    _exit(AllocateAll(ms, r, a, &s, false) ? 0 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) { (*crashed)++; return false; }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

std::vector<uint64_t> Outputs(tflite::MicroInterpreter* in) {
  std::vector<uint64_t> h;
  for (size_t i = 0; i < in->outputs_size(); i++) {
    TfLiteTensor* t = in->output(i);
    h.push_back(Fnv1a(static_cast<const uint8_t*>(t->data.data), t->bytes));
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  size_t arena = 16 << 20;
  bool min_arena = false;
  int rounds = 3;
  std::vector<Loaded> ms;
  std::vector<Handoff> handoffs;
  int nstages = 0;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--min-arena") { min_arena = true; continue; }
    if (a == "--arena" && i + 1 < argc) { arena = strtoull(argv[++i], nullptr, 0); continue; }
    if (a == "--rounds" && i + 1 < argc) { rounds = atoi(argv[++i]); continue; }
    if (a == "--handoff" && i + 1 < argc) {
      Handoff h;
      if (sscanf(argv[++i], "%zu:%zu=%zu:%zu", &h.from, &h.out, &h.to, &h.in) != 4) {
        fprintf(stderr, "tflm_multi: --handoff wants K:O=L:I\n");
        return 2;
      }
      handoffs.push_back(h);
      continue;
    }
    if (a.size() > 1 && a[0] == '-') { fprintf(stderr, "tflm_multi: unknown flag %s\n", a.c_str()); return 2; }
    size_t p = 0;
    while (p <= a.size()) {
      size_t q = a.find(',', p);
      if (q == std::string::npos) q = a.size();
      Loaded m;
      if (!Load(a.substr(p, q - p).c_str(), &m)) return 2;
      m.stage = nstages;
      ms.push_back(std::move(m));
      p = q + 1;
    }
    nstages++;
  }
  if (ms.empty() || rounds < 1 || arena < 64) {
    fprintf(stderr, "usage: tflm_multi [--arena BYTES] [--min-arena] [--rounds R] MODEL[,MODEL...] ...\n");
    return 2;
  }
  for (const Handoff& h : handoffs)
    if (h.from >= ms.size() || h.to >= ms.size() || ms[h.from].stage >= ms[h.to].stage) {
      fprintf(stderr, "tflm_multi: --handoff %zu:%zu=%zu:%zu: no such models, or %zu does not run before %zu\n", h.from, h.out, h.to, h.in, h.from, h.to);
      return 2;
    }
  auto handed = [&](size_t k, size_t i) {
    for (const Handoff& h : handoffs)
      if (h.to == k && h.in == i) return true;
    return false;
  };
  static Resolver resolver;
  if (AddAllOps(resolver)) printf("resolver_failures\n");
  for (size_t k = 0; k < ms.size(); k++) printf("model %zu %s stage %d\n", k, ms[k].path.c_str(), ms[k].stage);

  // Each model alone: its outputs are the reference.
  std::vector<std::vector<uint64_t>> ref(ms.size());
  std::vector<std::vector<std::vector<uint8_t>>> alone_out(ms.size());
  std::vector<size_t> order(ms.size());
  for (size_t k = 0; k < ms.size(); k++) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return ms[x].stage < ms[y].stage; });
  for (size_t k : order) {
    Arena a(16 << 20);
    auto* sa = tflite::SingleArenaBufferAllocator::Create(a.arena, a.size);
    uint8_t* pbuf = sa->AllocatePersistentBuffer(sizeof(tflite::GreedyMemoryPlanner), alignof(tflite::GreedyMemoryPlanner));
    auto* planner = new (pbuf) tflite::GreedyMemoryPlanner();
    tflite::MicroAllocator* alloc = tflite::MicroAllocator::Create(sa, planner);
    tflite::MicroInterpreter in(ms[k].model, resolver, alloc);
    if (in.AllocateTensors() != kTfLiteOk) { printf("result FAIL alone-AllocateTensors %zu\n", k); return 1; }
    printf("alone %zu head %zu tail %zu used %zu\n", k, sa->GetNonPersistentUsedBytes(), sa->GetPersistentUsedBytes(), in.arena_used_bytes());
    for (size_t i = 0; i < in.inputs_size(); i++) FillInput(in.input(i));
    for (const Handoff& h : handoffs) {
      if (h.to != k) continue;
      TfLiteTensor* t = in.input(h.in);
      if (h.in >= in.inputs_size() || h.out >= alone_out[h.from].size() || alone_out[h.from][h.out].size() != t->bytes) {
        printf("result FAIL handoff %zu:%zu=%zu:%zu (no such tensor, or the sizes differ)\n", h.from, h.out, h.to, h.in);
        return 1;
      }
      memcpy(t->data.data, alone_out[h.from][h.out].data(), t->bytes);
    }
    if (in.Invoke() != kTfLiteOk) { printf("result FAIL alone-Invoke %zu\n", k); return 1; }
    ref[k] = Outputs(&in);
    for (size_t i = 0; i < in.outputs_size(); i++) {
      const uint8_t* p = static_cast<const uint8_t*>(in.output(i)->data.data);
      alone_out[k].emplace_back(p, p + in.output(i)->bytes);
    }
  }

  // Every model on one allocator.
  Arena a(arena);
  Shared s;
  if (!AllocateAll(ms, resolver, a, &s, true)) return 1;
  for (size_t k = 0; k < ms.size(); k++) printf("shared_model %zu head %zu tail_added %zu\n", k, s.heads[k], s.tails[k]);
  printf("shared_head %zu\n", s.sa->GetNonPersistentUsedBytes());
  printf("shared_tail %zu\n", s.sa->GetPersistentUsedBytes());
  printf("shared_used %zu\n", s.alloc->used_bytes());

  int rc = 0;
  // Models of one stage must not share a byte.
  bool overlap = false;
  for (size_t x = 0; x < ms.size() && !overlap; x++)
    for (size_t y = x + 1; y < ms.size() && !overlap; y++) {
      if (ms[x].stage != ms[y].stage) continue;
      for (const Range& p : s.ranges[x]) {
        for (const Range& q : s.ranges[y])
          if (p.lo < q.hi && q.lo < p.hi) {
            printf("concurrent_overlap %zu b%d [%lld,%lld) %zu b%d [%lld,%lld)\n", x, p.id, p.lo, p.hi, y, q.id, q.lo, q.hi);
            overlap = true;
            break;
          }
        if (overlap) break;
      }
    }
  if (nstages < static_cast<int>(ms.size())) printf("concurrent_check %s\n", overlap ? "FAIL" : "ok");
  if (overlap) rc = 1;

  // Run: stage by stage, the models of a stage in threads, each stage `rounds` times.
  for (int st = 0; st < nstages; st++) {
    std::vector<size_t> ks;
    for (size_t k = 0; k < ms.size(); k++)
      if (ms[k].stage == st) ks.push_back(k);
    for (int round = 0; round < (ks.size() > 1 ? rounds : 1); round++) {
      std::vector<TfLiteStatus> status(ks.size(), kTfLiteOk);
      for (size_t k : ks)
        for (size_t i = 0; i < s.interps[k]->inputs_size(); i++)
          if (!handed(k, i)) FillInput(s.interps[k]->input(i));
      if (ks.size() == 1) {
        status[0] = s.interps[ks[0]]->Invoke();
      } else {
        std::vector<std::thread> ts;
        for (size_t j = 0; j < ks.size(); j++) ts.emplace_back([&, j] { status[j] = s.interps[ks[j]]->Invoke(); });
        for (auto& t : ts) t.join();
      }
      for (size_t j = 0; j < ks.size(); j++) {
        size_t k = ks[j];
        if (status[j] != kTfLiteOk) { printf("result FAIL Invoke %zu\n", k); return 1; }
        std::vector<uint64_t> got = Outputs(s.interps[k]);
        for (size_t i = 0; i < got.size(); i++) {
          bool same = i < ref[k].size() && got[i] == ref[k][i];
          if (round == 0 || !same)
            printf("shared_output %zu %zu bytes %zu fnv1a 0x%016" PRIx64 " alone 0x%016" PRIx64 " match %s\n", k, i,
                   s.interps[k]->output(i)->bytes, got[i], i < ref[k].size() ? ref[k][i] : 0, same ? "yes" : "no");
          if (!same) rc = 1;
        }
      }
    }
  }
  std::string what;
  if (!a.GuardsOk(&what)) { printf("guards CORRUPTED %s\n", what.c_str()); rc = 1; }
  else printf("guards ok\n");

  if (min_arena) {
    int crashed = 0, trials = 1;
    if (!AllAllocateIn(ms, resolver, arena, &crashed)) { printf("min_arena FAIL (does not allocate in %zu)\n", arena); return 1; }
    size_t lo = 0, hi = arena;
    while (hi - lo > 16) {
      size_t mid = (lo + hi) / 2 / 16 * 16;
      if (mid <= lo) mid = lo + 16;
      trials++;
      if (AllAllocateIn(ms, resolver, mid, &crashed)) hi = mid; else lo = mid;
    }
    printf("min_arena %zu\n", hi);
    printf("min_arena_trials %d tflm_crashed %d\n", trials, crashed);
  }
  printf("result %s\n", rc == 0 ? "ok" : "FAIL");
  return rc;
}
