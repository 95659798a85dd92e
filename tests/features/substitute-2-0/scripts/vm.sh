#!/bin/sh
echo vm
