#!/bin/sh
echo d
