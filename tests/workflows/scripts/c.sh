#!/bin/sh
echo c
