#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
NNODES=${SLURM_NNODES:-2}
DISTRIBUTED_ARGS="
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NNODES
    --master_port 6000
"
GPT_ARGS=(
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048
    --max-position-embeddings 2048 --micro-batch-size 4 --global-batch-size 512 --lr 3e-4
    --train-iters 1000 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --bf16
)
if [ -n "$BIG" ]; then GPN=8; else GPN=1; fi
torchrun $DISTRIBUTED_ARGS pretrain_gpt.py "${GPT_ARGS[@]}" --save '$CKPT' --log-dir $(pwd)/logs `hostname`
