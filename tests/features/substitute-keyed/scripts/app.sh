#!/bin/sh
echo app
