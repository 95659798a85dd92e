#!/bin/sh
echo e
