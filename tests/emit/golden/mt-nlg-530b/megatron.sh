#!/bin/bash
# Written by isoflop 0.1.0 from the plan fnv1a64:HASH
# Model "mt-nlg-530b"; target Megatron-LM core_v0.13.0 (pretrain_gpt.py)
# Predicted: step 38.951 s, memory 59.6 GiB per GPU, MFU 54.4%; run 30.00 days
# Layout: TP 8, PP 7, CP 1, DP 40, EP 1 on 2240 GPUs (280 nodes)
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
  --num-layers 105
  --hidden-size 20480
  --ffn-hidden-size 81920
  --num-attention-heads 128
  --kv-channels 160
  --seq-length 2048
  --max-position-embeddings 2048
  --position-embedding-type learned_absolute
  --normalization LayerNorm
  --tokenizer-type NullTokenizer
  --vocab-size 51200
  --make-vocab-size-divisible-by 1
  --use-flash-attn
  --tensor-model-parallel-size 8
  --pipeline-model-parallel-size 7
  --num-layers-per-virtual-pipeline-stage 5
  --sequence-parallel
  --use-distributed-optimizer
  --overlap-grad-reduce
  --overlap-param-gather
  --micro-batch-size 1
  --global-batch-size 2240
  --train-samples 150634178
  --lr 5e-05
  --min-lr 5e-06
  --lr-decay-style cosine
  --lr-warmup-samples 488320
  --lr-decay-samples 150634178
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

torchrun --nnodes "${NNODES:-280}" --nproc-per-node 8 \
  --rdzv-backend c10d --rdzv-endpoint "${MASTER_ADDR:-localhost}:${MASTER_PORT:-29500}" --rdzv-id "${RDZV_ID:-isoflop}" \
  "$MEGATRON_LM/pretrain_gpt.py" "${MEGATRON_ARGS[@]}"
