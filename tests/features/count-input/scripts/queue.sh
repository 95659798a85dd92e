#!/bin/sh
echo "queue"
