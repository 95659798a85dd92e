#!/bin/sh
echo "worker $WORKER_NAME"
