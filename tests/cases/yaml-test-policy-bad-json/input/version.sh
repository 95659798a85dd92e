#!/bin/sh
echo Version=1
