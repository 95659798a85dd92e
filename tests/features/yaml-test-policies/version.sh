#!/bin/sh
echo "Version=1.2"
