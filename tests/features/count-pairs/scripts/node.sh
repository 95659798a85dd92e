#!/bin/sh
echo "node created or deleted"
