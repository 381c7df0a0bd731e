#!/bin/bash
# Written by isoflop 0.1.0 from the plan fnv1a64:HASH
# Model "planned"; target Megatron-LM core_v0.13.0 (pretrain_gpt.py)
# Predicted: step 17.102 s, memory 54.1 GiB per GPU, MFU 51.3%; run 30.00 days
# Layout: TP 4, PP 7, CP 1, DP 120, EP 1 on 3360 GPUs (420 nodes)
# positional encoding 'relative' has no megatron spelling: runs 'rotary' instead (parameters 1.162e+11 -> 1.073e+11, layout unchanged)
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
  --hidden-size 9216
  --ffn-hidden-size 36864
  --num-attention-heads 72
  --kv-channels 128
  --seq-length 2048
  --max-position-embeddings 2048
  --position-embedding-type rope
  --normalization RMSNorm
  --tokenizer-type NullTokenizer
  --vocab-size 32000
  --make-vocab-size-divisible-by 1
  --use-flash-attn
  --tensor-model-parallel-size 4
  --pipeline-model-parallel-size 7
  --num-layers-per-virtual-pipeline-stage 5
  --sequence-parallel
  --use-distributed-optimizer
  --overlap-grad-reduce
  --overlap-param-gather
  --micro-batch-size 2
  --global-batch-size 6720
  --train-samples 1021604315
  --lr 6.57e-05
  --min-lr 6.57e-06
  --lr-decay-style cosine
  --lr-warmup-samples 490560
  --lr-decay-samples 1021604315
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

torchrun --nnodes "${NNODES:-420}" --nproc-per-node 8 \
  --rdzv-backend c10d --rdzv-endpoint "${MASTER_ADDR:-localhost}:${MASTER_PORT:-29500}" --rdzv-id "${RDZV_ID:-isoflop}" \
  "$MEGATRON_LM/pretrain_gpt.py" "${MEGATRON_ARGS[@]}"
