#!/bin/bash
# Written by isoflop 0.1.0 from the plan fnv1a64:HASH
# Model "llama2-70b"; target Megatron-LM core_v0.13.0 (pretrain_gpt.py)
# Predicted: step 13.205 s, memory 67.7 GiB per GPU, MFU 55.7%; run 30.00 days
# Layout: TP 4, PP 4, CP 1, DP 32, EP 1 on 512 GPUs (64 nodes)
# Run on every node (the SLURM script does that); torchrun starts one process per GPU. Set DATA_PATH to
# the preprocessed data's prefix and replace the NullTokenizer with the tokenizer of that data.
set -euo pipefail

export CUDA_DEVICE_MAX_CONNECTIONS=1
export NCCL_IB_SL=1
export NCCL_IB_TIMEOUT=19
MEGATRON_LM="${MEGATRON_LM:-/opt/Megatron-LM}"
DATA_PATH="${DATA_PATH:?set DATA_PATH to the preprocessed data prefix}"
CHECKPOINT_DIR="${CHECKPOINT_DIR:-checkpoints}"

MEGATRON_ARGS=(
  --num-layers 80
  --hidden-size 8192
  --ffn-hidden-size 28672
  --num-attention-heads 64
  --group-query-attention
  --num-query-groups 8
  --kv-channels 128
  --seq-length 4096
  --max-position-embeddings 4096
  --position-embedding-type rope
  --normalization RMSNorm
  --swiglu
  --untie-embeddings-and-output-weights
  --disable-bias-linear
  --tokenizer-type NullTokenizer
  --vocab-size 32000
  --make-vocab-size-divisible-by 1
  --use-flash-attn
  --tensor-model-parallel-size 4
  --pipeline-model-parallel-size 4
  --sequence-parallel
  --overlap-grad-reduce
  --use-distributed-optimizer
  --overlap-param-gather
  --micro-batch-size 2
  --global-batch-size 2048
  --train-samples 401997393
  --lr 7.37e-05
  --min-lr 7.37e-06
  --lr-decay-style cosine
  --lr-warmup-samples 243712
  --lr-decay-samples 401997393
  --weight-decay 0.1
  --clip-grad 1
  --adam-beta1 0.9
  --adam-beta2 0.95
  --adam-eps 1e-08
  --bf16
  --log-interval 100
  --save-interval 10000
  --eval-interval 1000
  --eval-iters 10
  --split 949,50,1
  --data-path "$DATA_PATH"
  --save "$CHECKPOINT_DIR"
  --load "$CHECKPOINT_DIR"
)

torchrun --nnodes "${NNODES:-64}" --nproc-per-node 8 \
  --rdzv-backend c10d --rdzv-endpoint "${MASTER_ADDR:-localhost}:${MASTER_PORT:-29500}" --rdzv-id "${RDZV_ID:-isoflop}" \
  "$MEGATRON_LM/pretrain_gpt.py" "${MEGATRON_ARGS[@]}"
