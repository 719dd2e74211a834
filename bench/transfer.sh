#!/bin/sh
# bench/transfer.sh: how the predictor transfers to published runs that are
# not in ../shared/data/runs-dev.csv and that nothing was fitted on. It
# writes their rows in the runs schema (RUNS.md) to a scratch file from the
# figures the two sources publish, runs `trainplan validate` on it and
# prints the table. Figures only: nothing here is asserted, and these rows
# feed no fit and no gate.
#
# megatron_readme_h100: NVIDIA/Megatron-LM README.md "Performance
#   Benchmarking", images/model_table.png (Megatron-Core r0.8.0 on H100,
#   weak scaling): GPT models 1.7B-462B, vocabulary 131,072, sequence 4,096,
#   TP / PP / DP / GPUs / batch as in the table, and the per-GPU TFLOP/s;
#   the README's "Benchmark Configuration" overlaps DP, TP and PP
#   communication. Not stated: micro-batch (1 here), recompute (none),
#   precision (bf16: MFU = TFLOP/s / 989). The time is the FLOPs of
#   Narayanan et al. (SC21, eq. 3 without recompute: 72 B s l h^2 (1 +
#   s / 6h + V / 12lh)) over the GPUs' TFLOP/s, as "derived" rows are.
# mbridge: NVIDIA-NeMo/Megatron-Bridge docs/fern/versions/0.4.2/pages/
#   performance-summary.mdx, "26.04.01 NeMo Container", pre-training tables
#   (DGX-H100, DGX-B200, DGX-GB200 rows; GB300 / B300 and NVFP4 have no
#   preset here): GBS, MBS, sequence, FSDP, TP, PP, CP, VP, EP and tokens /
#   s / GPU; the time is GBS x sequence over tokens / s / GPU x GPUs.
#   MXFP8 and FP8 are the schema's fp8; FSDP > 0 is zero 3. Recompute is
#   not given (none here).
#
# Usage: sh bench/transfer.sh   (TRAINPLAN=path to another binary)
set -e
T=${TRAINPLAN:-./trainplan}
runs=$(mktemp "${TMPDIR:-/tmp}/trainplan-transfer.XXXXXX")
trap 'rm -f "$runs"' EXIT

echo "id,source,confidence,system,gpu,num_gpus,gpus_per_node,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,seq_len,glu,moe_experts,moe_topk,tp,pp,dp,cp,ep,vpp,sp,recompute,zero,mbs,gbs,precision,measured_iter_s,measured_kind,measured_mem_gib,oom,assumed,stack" >"$runs"

# name heads hidden layers tp pp dp gpus batch tflops
awk 'BEGIN { V = 131072; s = 4096 }
{
    h = $3; l = $4; B = $9
    f = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))
    printf "README-%s,megatron_readme_h100,B,dgx-h100,H100-SXM5-80GB,%d,8,GPT-%s,%d,%d,%d,%d,%d,%d,%d,n,0,0,%d,%d,%d,1,1,1,%s,none,1,1,%d,bf16,%.4f,derived,,n,mbs;recompute;precision,megatron-core\n",
        $1, $8, $1, l, h, $2, $2, 4 * h, V, s, $5, $6, $7, ($5 > 1 ? "y" : "n"), B,
        f / ($10 * 1e12 * $8)
}' >>"$runs" <<'EOF'
1.7B 16 2048 24 1 1 48 48 192 408.8
7.1B 32 4096 30 2 1 48 96 192 465.9
16B 48 6144 32 4 1 48 192 192 489.1
32B 56 7168 48 8 1 48 384 192 459.6
70B 64 8192 84 8 2 48 768 384 419.7
119B 80 10240 92 8 4 48 1536 768 420.5
177B 96 12288 96 8 6 48 2304 1152 432.8
314B 128 16384 96 8 8 48 3072 1536 474.4
462B 144 18432 112 8 16 48 6144 3072 459.9
EOF

# model system gpus precision gbs mbs seq fsdp tp pp cp vp ep tokens/s/GPU
awk '
BEGIN {
    # name layers hidden heads kv ffn(per expert) vocab experts topk
    m["l70"] = "Llama-3-70B 80 8192 64 8 28672 128256 0 0"
    m["l405"] = "Llama-3.1-405B 126 16384 128 8 53248 128256 0 0"
    m["dsv3"] = "DeepSeek-V3 61 7168 128 128 2048 129280 256 8"
    m["oss"] = "GPT-OSS-120B 36 2880 64 8 2880 201088 128 4"
    m["q30"] = "Qwen3-30B-A3B 48 2048 32 4 768 151936 128 8"
    m["q235"] = "Qwen3-235B-A22B 94 4096 64 4 1536 151936 128 8"
    s["GB200"] = "gb200-nvl72 GB200-186GB 4"
    s["B200"] = "dgx-b200 B200-SXM-180GB 8"
    s["H100"] = "dgx-h100 H100-SXM5-80GB 8"
}
{
    split(m[$1], a, " "); split(s[$2], b, " ")
    dp = $3 / ($9 * $10 * $11)
    printf "MBRIDGE-%02d-%s-%s,mbridge,A,%s,%s,%d,%d,%s,%d,%d,%d,%d,%d,%d,%d,y,%d,%d,%d,%d,%d,%d,%d,%d,%s,none,%d,%d,%d,%s,%.4f,derived,,n,recompute,megatron-core\n",
        NR, $1, $2, b[1], b[2], $3, b[3], a[1], a[2], a[3], a[4], a[5], a[6], a[7], $7,
        a[8], a[9], $9, $10, dp, $11, $13, $12, ($9 > 1 ? "y" : "n"),
        ($8 > 0 ? 3 : 1), $6, $5, $4, $5 * $7 / ($14 * $3)
}' >>"$runs" <<'EOF'
l70 GB200 64 fp8 256 2 8192 64 1 1 1 1 1 4224
l70 GB200 64 fp8 256 1 8192 0 2 4 1 5 1 3712
l70 H100 64 fp8 256 1 8192 0 4 8 1 5 1 1664
l405 GB200 256 fp8 1536 1 8192 0 4 16 1 4 1 864
l405 GB200 256 fp8 1536 1 8192 0 4 16 1 8 1 800
l405 H100 1024 fp8 1536 1 8192 0 8 8 2 8 1 328
dsv3 GB200 256 fp8 4096 1 4096 0 1 4 1 4 64 4256
dsv3 B200 256 fp8 4096 1 4096 0 1 8 1 2 32 3328
oss GB200 64 bf16 1280 4 4096 0 1 1 1 1 64 16640
oss B200 64 bf16 1280 4 4096 0 1 1 1 1 8 13568
oss H100 64 bf16 1280 1 4096 0 1 4 1 1 8 5824
q30 GB200 8 fp8 512 4 4096 0 1 1 1 1 8 26112
q30 B200 8 fp8 512 4 4096 0 1 1 1 1 8 27136
q30 H100 16 fp8 1024 1 4096 0 1 1 1 1 16 8960
q235 GB200 256 fp8 8192 1 4096 0 1 8 1 3 32 5680
q235 B200 256 fp8 8192 1 4096 0 1 8 1 1 8 3776
q235 H100 256 fp8 8192 1 4096 0 2 8 1 4 32 1712
EOF

"$T" validate "$runs"
