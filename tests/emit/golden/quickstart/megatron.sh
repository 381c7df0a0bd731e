#!/bin/bash
# Written by isoflop 0.1.0 from the plan fnv1a64:HASH
# Model "planned"; target Megatron-LM core_v0.13.0 (pretrain_gpt.py)
# Predicted: step 17.550 s, memory 57.4 GiB per GPU, MFU 51.6%; run 30.00 days
# Layout: TP 8, PP 2, CP 1, DP 210, EP 1 on 3360 GPUs (420 nodes)
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
  --num-layers 88
  --hidden-size 10240
  --ffn-hidden-size 40960
  --num-attention-heads 80
  --kv-channels 128
  --seq-length 2048
  --max-position-embeddings 2048
  --position-embedding-type learned_absolute
  --normalization LayerNorm
  --tokenizer-type NullTokenizer
  --vocab-size 50257
  --make-vocab-size-divisible-by 1
  --use-flash-attn
  --tensor-model-parallel-size 8
  --pipeline-model-parallel-size 2
  --num-layers-per-virtual-pipeline-stage 11
  --sequence-parallel
  --use-distributed-optimizer
  --overlap-grad-reduce
  --overlap-param-gather
  --micro-batch-size 4
  --global-batch-size 6720
  --train-samples 986055631
  --lr 6.62e-05
  --min-lr 6.62e-06
  --lr-decay-style cosine
  --lr-warmup-samples 490560
  --lr-decay-samples 986055631
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
